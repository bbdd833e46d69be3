"""A laptop without a headset: the virtual speaker is looped back into the virtual
microphone (0 dB / -10 dB, 30 / 120 ms), the app runs in its default speaker mode (echo
cancelled, full duplex). The tutor must never answer or interrupt itself, a learner
talking over it must stop it and be heard, and an "mm-hm" must not stop it."""
from __future__ import annotations

import numpy as np
import pytest

from tests.e2e.conftest import play_into_mic
from tests.e2e.test_live_call import start
from tests.fakes.anthropic_server import Reply
from tutor_app.bench.loopback import Loopback
from tutor_app.call import events as ev
from tutor_app.call.listen.turn_taking import is_backchannel
from tutor_app.speech.wer import wer as word_error_rate

pytestmark = [pytest.mark.audio, pytest.mark.slow]

REPLY = ("That sounds like a lovely weekend. Did you go there with your family or with friends? "
         "Tell me one thing you enjoyed most about it.")
LONG_REPLY = ("Interviews can be stressful, so well done for going. "
              "First, tell me which company it was and what the job is about. "
              "Then we can practise the hardest questions together, one by one, slowly. "
              "Finally, I will give you some feedback on your answers and your pronunciation.")
STALL_TRIES = 3  # measurements of the canceller, until one has no stall of the sound server
LEARNER = "Last weekend I went hiking in the mountains near Seoul."
BARGE = "Sorry, can I ask you something about the interview questions you mentioned before, please?"


@pytest.fixture
def speaker_app(call_app):
    call_app.settings.speech.audio_mode = "auto"  # the default: the null sinks look like speakers
    return call_app


def _quiet_after(controller, seconds: float) -> None:
    """Let the microphone run this long (counted in frames, not slept)."""
    loop = controller.loop
    assert loop.wait_frames(loop.frames_seen + int(seconds * 16000 / 512), timeout=seconds + 20)


def _until_audible(controller) -> None:
    """Let the microphone run until the tutor's voice is playing (frame by frame, not slept)."""
    loop = controller.loop
    for _ in range(200):  # 6.4 s
        if loop.tutor_audible():
            return
        assert loop.wait_frames(loop.frames_seen + 1, timeout=20)
    raise AssertionError("the tutor never became audible")


@pytest.mark.parametrize("loopback", [(30, 0.0), (120, -10.0)], indirect=True)
def test_the_tutor_never_hears_itself(speaker_app, fake_anthropic, learner_wav, loopback):
    replies = 5
    fake_anthropic.default = Reply(REPLY)  # a speculative request gets it too
    clip = learner_wav(LEARNER)
    controller, recorder = start(speaker_app)
    try:
        assert controller.loop.options.echo.mode == "speaker"
        for n in range(1, replies + 1):
            play_into_mic(clip).wait(timeout=20)
            recorder.wait_kind(ev.TutorTurnDone, n, timeout=90)
            _quiet_after(controller, 1.5)  # the reply's tail and the room: no phantom turn
    finally:
        controller.end_call()
    done = recorder.of(ev.TutorTurnDone)
    utterances = [u.text for u in recorder.of(ev.UserUtterance) if u.text]
    assert len(done) == replies and not any(d.interrupted for d in done), [d.reply for d in done]
    assert len(utterances) == replies, utterances  # every turn is the learner's, none the tutor's echo
    assert all(d.reply == REPLY for d in done)
    assert not recorder.of(ev.Backchannel)  # nor kept its own voice as the learner's "mm-hm"


def test_talking_over_the_tutor_stops_it_and_is_heard(speaker_app, fake_anthropic, learner_wav):
    fake_anthropic.default = Reply(LONG_REPLY, token_delay=0.02)  # a speculative request gets it too
    first = learner_wav("Hello, I had a job interview today.", "first.wav")
    second = learner_wav(BARGE, "second.wav")
    clean = speaker_app.stt.transcribe(second).text
    with Loopback(30, 0.0):
        controller, recorder = start(speaker_app)
        try:
            play_into_mic(first).wait(timeout=20)
            recorder.wait_kind(ev.TutorSentence, timeout=60)
            # Right as the tutor starts: AEC3 has not converged and its suppressor hides a
            # first word from the VAD (CI lost "Sorry, can I" when the race went this way).
            _until_audible(controller)
            _quiet_after(controller, 0.2)
            play_into_mic(second).wait(timeout=20)
            done = recorder.wait_kind(ev.TutorTurnDone, timeout=60)[0]
            heard = recorder.wait_kind(ev.UserUtterance, 2, timeout=60)[1].text
        finally:
            controller.end_call()
    assert done.interrupted and len(done.reply) < len(LONG_REPLY)
    wer_echo, wer_clean = word_error_rate(BARGE, heard), word_error_rate(BARGE, clean)
    assert wer_echo <= wer_clean + 0.10, (heard, clean)


def test_a_backchannel_over_the_tutor_does_not_stop_it(speaker_app, fake_anthropic, learner_wav):
    fake_anthropic.default = Reply(LONG_REPLY, token_delay=0.02)  # a speculative request gets it too
    first = learner_wav("Hello, I had a job interview today.", "first.wav")
    mhm = learner_wav("Mm-hmm.", "mhm.wav")
    with Loopback(30, 0.0):
        controller, recorder = start(speaker_app)
        try:
            play_into_mic(first).wait(timeout=20)
            recorder.wait_kind(ev.TutorSentence, timeout=60)
            for _ in range(2):  # well into the reply, twice: the tutor alone around each
                _quiet_after(controller, 1.0)
                play_into_mic(mhm).wait(timeout=20)
            done = recorder.wait_kind(ev.TutorTurnDone, timeout=90)[0]
        finally:
            controller.end_call()
    assert not done.interrupted and done.reply == LONG_REPLY
    kept = [b.text for b in recorder.of(ev.Backchannel)]
    # Kept, in the transcript of the turn. Whether tiny.en makes words of a looped-back hum
    # at all is its own luck (it lost both in 2 of 11 runs under load; once it heard "Okay"):
    # what is kept is a backchannel, never the tutor's words. That a heard backchannel is
    # kept and resumes the tutor is tested on scripted frames (tests/unit/test_listener.py);
    # `bench echo` counts how many are kept.
    assert len(kept) <= 2 and all(is_backchannel(k) for k in kept), kept
    assert done.backchannels == tuple(kept)
    assert len([u for u in recorder.of(ev.UserUtterance) if u.text]) == 1


@pytest.mark.parametrize("loopback", [(30, 0.0), (120, 0.0), (30, -10.0), (120, -10.0)], indirect=True)
def test_the_canceller_removes_the_tutor_from_the_microphone(models, loopback):
    """The app's Player plays a Piper reply with the far-end tap, the Capture reads the
    looped-back microphone through the canceller: the echo left is far below the raw one."""
    from tutor_app.bench.common import TYPICAL_REPLY
    from tutor_app.bench.echo import signal_path

    reply = models.tts.synthesize_all(TYPICAL_REPLY)
    rows = []
    for _ in range(STALL_TRIES):
        rows.append(signal_path(models, reply))
        if rows[-1]["stalls"] == 0:
            break
    row = rows[-1]
    # A stall of the sound server (the device ran dry, input was lost) breaks the far end's
    # timeline and the canceller converges again: measured after a 300 ms stop of the
    # server, ERLE 12 dB instead of 31. That run says nothing about the canceller (in a
    # call the microphone is gated for the rest of such a reply), so it is measured again.
    assert row["stalls"] == 0, f"the virtual sound card stalled in each of {len(rows)} runs: {rows}"
    assert row["vad_raw"] > 100, row  # the loopback really carried the tutor's voice
    # The reply starts once both streams are paired, as in a call. Measured with capture
    # blocks of 256: 41-73 dB over the reply, 49-78 once converged, ~335 -> 0 VAD speech
    # frames (512: 45-84 and 73-84). The 120 ms loopbacks converge slowest.
    assert row["erle_db"] >= 25, row
    assert row["settled_erle_db"] >= 40, row
    # over the whole reply, the canceller's first half second of convergence included
    assert 20 * np.log10(row["rms_raw"] / max(row["rms_clean"], 1e-9)) >= 10, row
    assert row["vad_clean"] <= 0.25 * row["vad_raw"], row
