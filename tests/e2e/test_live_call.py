"""A live call through the real audio path: WAV -> virtual mic -> VAD -> Whisper -> the
fake tutor model -> Piper -> virtual speaker -> recorded and transcribed back."""
from __future__ import annotations

import pytest

from tests.e2e.conftest import SpeakerRecording, play_into_mic
from tests.fakes.anthropic_server import Reply
from tests.unit.call_fakes import Recorder
from tutor_app.call import events as ev
from tutor_app.call.controller import CallController
from tutor_app.speech.wer import normalize_words

pytestmark = [pytest.mark.audio, pytest.mark.slow]


def words(text: str) -> set[str]:
    return set(normalize_words(text))


def start(app, off_record: bool = True) -> tuple[CallController, Recorder]:
    controller = CallController(app)
    recorder = Recorder()
    controller.start_call(off_record=off_record, sink=recorder)
    assert controller.loop.ready.wait(30), "models did not warm up"
    # The first open of a stream can take a moment: wait until microphone frames flow.
    assert controller.loop.wait_frames(controller.loop.frames_seen + 10, timeout=10)
    return controller, recorder


def test_spoken_turn_is_answered_aloud(call_app, fake_anthropic, learner_wav, tmp_path):
    reply = "That sounds wonderful. What questions did they ask you?"
    # A pause after "Hello," may start a speculative turn (a request) that the learner's going
    # on retracts: every request gets the reply, and the turn's own request is the last one.
    fake_anthropic.default = Reply(reply)
    clip = learner_wav("Hello, I had a job interview today.")
    controller, recorder = start(call_app)
    try:
        recording = SpeakerRecording(tmp_path / "speaker.wav")
        play_into_mic(clip).wait(timeout=20)
        done = recorder.wait_kind(ev.TutorTurnDone, timeout=60)[0]
        recorded = recording.stop()
    finally:
        controller.end_call()
    heard = recorder.of(ev.UserUtterance)[0].text
    assert {"job", "interview"} <= words(heard)
    assert done.reply == reply and not done.interrupted
    assert " ".join(e.text for e in recorder.of(ev.TutorSentence)) == reply  # each sentence once
    user_turn = fake_anthropic.requests[-1].messages[-1]
    assert "interview" in str(user_turn["content"]).lower()
    for stamp in ("stt_done", "first_token", "first_sentence", "first_audio"):
        assert stamp in done.timings_ms
    spoken = call_app.stt.transcribe(recorded).text
    assert {"wonderful", "questions", "ask"} <= words(spoken), spoken


def test_barge_in_stops_playback_and_cuts_history(call_app, fake_anthropic, learner_wav):
    long_reply = ("Interviews can be stressful, so well done for going. "
                  "First, tell me which company it was and what the job is about. "
                  "Then we can practise the hardest questions together, one by one, slowly. "
                  "Finally, I will give you some feedback on your answers and your pronunciation.")
    fake_anthropic.push(Reply(long_reply, token_delay=0.02), Reply("Of course, go ahead."))
    # No comma in the first clip: a pause after "Hello," may start a speculative request that
    # would take the long reply from the queue.
    first = learner_wav("I had a job interview today.", "first.wav")
    second = learner_wav("Sorry, can I ask you something?", "second.wav")
    controller, recorder = start(call_app, off_record=False)  # the stored history is checked
    try:
        play_into_mic(first).wait(timeout=20)
        recorder.wait_kind(ev.TutorSentence, timeout=60)  # the tutor is speaking now
        play_into_mic(second).wait(timeout=20)
        done = recorder.wait_kind(ev.TutorTurnDone, timeout=60)[0]
        recorder.wait_kind(ev.TutorTurnDone, 2, timeout=60)
        session = controller.session
    finally:
        controller.end_call()
        controller.end_work.join(60)
    assert done.interrupted
    assert done.reply and long_reply.startswith(done.reply) and len(done.reply) < len(long_reply)
    assert session.turns[0].reply == done.reply  # history holds what was heard, no more
    stored = [m.text for m, _ in call_app.memory.session_messages(session.session_id) if m.role == "assistant"]
    assert stored[0] == done.reply
    second_request = fake_anthropic.requests[1].messages
    assert second_request[-2]["content"] == done.reply
    assert "ask" in words(recorder.of(ev.UserUtterance)[1].text)


def test_silence_makes_no_turn(call_app, fake_anthropic):
    controller, recorder = start(call_app)
    try:
        assert controller.loop.wait_frames(controller.loop.frames_seen + 80, timeout=15)  # 2.5 s
    finally:
        controller.end_call()
    assert not recorder.of(ev.SpeechStarted) and not recorder.of(ev.UserUtterance)
    assert not fake_anthropic.requests
    assert recorder.of(ev.MicLevel)
