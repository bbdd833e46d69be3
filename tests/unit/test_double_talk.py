"""The learner's voice over the tutor: the microphone minus a linear estimate of the echo
(speech/double_talk.py), the Listener handing exactly that to STT for speech that began
while the tutor was audible (AEC3's output otherwise), and short sounds the segmenter
never confirms kept as backchannels when they are a second voice (call/listen/overlap.py)."""
from __future__ import annotations

from concurrent.futures import Future
from types import SimpleNamespace

import numpy as np
import pytest

from tests.unit.call_fakes import FakeVad
from tutor_app.call.listen.listener import Listener
from tutor_app.call.listen.overlap import LinearCopy, ShortSpeech
from tutor_app.call.listen.turn_taking import (
    BACKCHANNEL,
    INTERRUPTION,
    NOTHING,
    backchannel_heard,
    backchannel_in,
    is_own_words,
    over_the_tutor,
)
from tutor_app.call.options import EchoOptions, EndpointingOptions, LoopOptions, frames
from tutor_app.core.types import SAMPLE_RATE
from tutor_app.speech.double_talk import GateOptions, block_rms, keep_second_voice, remove_echo_linearly, speech_onset
from tutor_app.speech.echo import SPEAKER


def _speechlike(seed: int, seconds: float) -> np.ndarray:
    """Coloured noise with a syllable-rate envelope: broadband like a voice, never periodic."""
    rng = np.random.default_rng(seed)
    n = int(seconds * SAMPLE_RATE)
    noise = np.convolve(rng.standard_normal(n), np.hanning(9), "same")
    envelope = 0.5 + 0.5 * np.sin(np.arange(n) * 2 * np.pi * 4 / SAMPLE_RATE) ** 2
    return (0.1 * noise * envelope / np.std(noise)).astype(np.float32)


def _db(a: np.ndarray, b: np.ndarray) -> float:
    return 10 * float(np.log10(np.sum(a.astype(np.float64) ** 2) / np.sum(b.astype(np.float64) ** 2)))


def _room(far: np.ndarray) -> np.ndarray:
    """The far end as the microphone hears it: 70 ms later, through a small room response."""
    path = np.zeros(1200)
    path[[1120, 1131, 1190]] = [0.8, -0.3, 0.15]
    return np.convolve(far, path)[:far.size].astype(np.float32)


def test_the_echo_is_removed_and_the_learner_kept():
    far = _speechlike(1, 5.0)
    learner = np.zeros_like(far)
    learner[3 * SAMPLE_RATE:4 * SAMPLE_RATE] = _speechlike(2, 1.0)  # talks over the tutor for one second
    mic = _room(far) + learner
    out = remove_echo_linearly(mic, far)
    echo_only = slice(SAMPLE_RATE, 3 * SAMPLE_RATE)
    assert _db(mic[echo_only], out[echo_only]) >= 20  # the tutor is gone (measured 26 dB) ...
    both = slice(3 * SAMPLE_RATE, 4 * SAMPLE_RATE)
    assert _db(learner[both], out[both] - learner[both]) >= 20  # ... the learner is not


def test_a_pause_between_the_learners_words_is_kept_only_when_asked():
    """Two words 320 ms apart over the tutor, then the tutor alone for a second."""
    far = _speechlike(11, 5.0)
    learner = np.zeros_like(far)
    for a, b in ((2.0, 2.5), (2.82, 3.3)):
        learner[int(a * SAMPLE_RATE):int(b * SAMPLE_RATE)] = _speechlike(12, b - a)
    raw = _room(far) + learner
    cleaned = remove_echo_linearly(raw, far)
    blocks = {name: block_rms(keep_second_voice(raw, cleaned, far, GateOptions(keep_pause_ms=ms)))
              for name, ms in (("voice", 0), ("floor", 480))}
    level = block_rms(cleaned)
    pause = slice(int(2.6 * SAMPLE_RATE) // 512, int(2.72 * SAMPLE_RATE) // 512)  # inside the pause, a block from each word
    after = slice(int(3.5 * SAMPLE_RATE) // 512, int(4.3 * SAMPLE_RATE) // 512)  # the tutor alone after both words
    assert np.all(blocks["voice"][pause] < 0.1 * level[pause])  # judging a short sound: voice alone
    assert np.allclose(blocks["floor"][pause], level[pause])  # the learner's own pause: kept
    for kept in blocks.values():
        assert np.all(kept[after] < 0.1 * level[after])  # a second of the tutor alone: turned down


def test_nothing_played_leaves_the_microphone_as_it_was():
    mic = _speechlike(3, 1.0)
    assert np.array_equal(remove_echo_linearly(mic, np.zeros_like(mic)), mic)
    assert remove_echo_linearly(np.zeros(0), np.zeros(0)).size == 0


def test_a_short_span_still_gets_a_shorter_fit():
    far = _speechlike(4, 0.3)  # shorter than one 512 ms window
    out = remove_echo_linearly(far * 0.5, far)
    assert _db(far * 0.5, out) >= 20


def test_microphone_and_far_end_must_pair_up():
    with pytest.raises(ValueError, match="differ in length"):
        remove_echo_linearly(np.zeros(100), np.zeros(99))


def _hidden_start(learner_at: list[tuple[float, float]], vad_at: float) -> tuple[int, int, int]:
    """The tutor for 5 s, the learner over it in `learner_at` (seconds); the VAD found the
    speech only at `vad_at` (AEC3 hid the rest) -> (where speech_onset puts it, where the
    VAD did, where it began)."""
    far = _speechlike(11, 5.0)
    learner = np.zeros_like(far)
    for a, b in learner_at:
        voice = _speechlike(12, b - a)
        learner[int(a * SAMPLE_RATE):int(a * SAMPLE_RATE) + voice.size] = voice
    mic = _room(far) + learner
    start = int(vad_at * SAMPLE_RATE) // 512 * 512
    onset = speech_onset(mic, remove_echo_linearly(mic, far), far, start, far.size)
    return onset, start, int(learner_at[0][0] * SAMPLE_RATE)


def test_the_start_aec3_hid_is_found():
    onset, _, truth = _hidden_start([(2.0, 2.3), (2.6, 5.0)], vad_at=3.0)  # "Sorry, | can I ask ..."
    assert truth - 2 * 512 <= onset <= truth


def _hidden_frames(learner_from: float, vad_at: float, with_reference: bool = True) -> int:
    """MicFrames.hidden_before for the learner talking over the tutor from `learner_from`
    (seconds), confirmed by the VAD from `vad_at`: frames as the Listener keeps them."""
    from tutor_app.call.listen.frames import MicFrames

    far = _speechlike(11, 5.0)
    learner = np.zeros_like(far)
    voice = _speechlike(12, 5.0 - learner_from)
    learner[int(learner_from * SAMPLE_RATE):int(learner_from * SAMPLE_RATE) + voice.size] = voice
    mic = _room(far) + learner
    frames = MicFrames()
    for k in range(far.size // 512):
        block = slice(k * 512, (k + 1) * 512)
        frames.append(mic[block], (mic[block], far[block]) if with_reference else None)
    return frames.hidden_before(int(vad_at * SAMPLE_RATE) // 512)


def test_the_voice_aec3_hid_counts_toward_the_interruption():
    assert abs(_hidden_frames(2.0, vad_at=3.0) - SAMPLE_RATE // 512) <= 2  # a second of speech already
    assert _hidden_frames(3.0, vad_at=3.0) == 0  # the tutor alone before the VAD's start
    assert _hidden_frames(2.0, vad_at=3.0, with_reference=False) == 0  # no canceller: nothing to tell


def test_a_start_found_at_the_confirmation_stays_found(monkeypatch):
    """The words of speech over the tutor start where its start was first found, though a
    later look (a fit on more of the learner's own voice) no longer finds it: in two barge-ins
    of thirty right as a reply began, the learner's "Sorry," was found at the confirmation
    and lost from the turn's words. Another utterance is looked at afresh."""
    import tutor_app.call.listen.frames as frames_module

    blocks = _blocks_over_the_tutor(2.0, seconds=5.0)
    vad_start, end = 3 * SAMPLE_RATE // 512, 4 * SAMPLE_RATE // 512
    frames = _frames(blocks[:end])
    hidden = frames.hidden_before(vad_start)
    assert abs(hidden - SAMPLE_RATE // 512) <= 2  # the second before the VAD's start: the learner's
    monkeypatch.setattr(frames_module, "speech_onset", lambda raw, res, far, start, stop=None: start)
    words = frames.words(vad_start, end, over_tutor=True)
    assert words.size == (end - vad_start + hidden) * 512  # from the start found first
    later = vad_start + 8  # another utterance: no start before its own
    assert frames.words(later, end, over_tutor=True).size == (end - later) * 512


def test_no_start_before_the_vad_when_the_tutor_was_alone():
    onset, start, _ = _hidden_start([(3.0, 5.0)], vad_at=3.0)
    assert onset == start


def test_a_word_after_a_long_gap_or_too_long_before_is_another_utterance():
    onset, _, _ = _hidden_start([(1.8, 2.1), (2.8, 5.0)], vad_at=3.1)  # 700 ms of the tutor alone between
    assert abs(onset - int(2.8 * SAMPLE_RATE)) <= 2 * 512
    onset, _, _ = _hidden_start([(1.0, 3.5)], vad_at=3.3)  # 2.3 s hidden: at most max_lead_ms are searched
    assert onset >= int(3.3 * SAMPLE_RATE) - int(1.5 * SAMPLE_RATE) - 2 * 512


def _blocks_over_the_tutor(learner_from: float, seconds: float) -> list:
    """(frame, (microphone, far end)) blocks of the tutor's echo (the room's path) with the
    learner over it from `learner_from` s, as the Listener keeps them."""
    far = _speechlike(21, seconds)
    mic = _room(far)
    at = int(learner_from * SAMPLE_RATE)
    if at < far.size:
        mic[at:] += _speechlike(22, seconds)[:far.size - at]
    return [(mic[k * 512:(k + 1) * 512], (mic[k * 512:(k + 1) * 512], far[k * 512:(k + 1) * 512]))
            for k in range(far.size // 512)]


def _frames(blocks: list):
    from tutor_app.call.listen.frames import MicFrames

    frames = MicFrames()
    for frame, ref in blocks:
        frames.append(frame, ref)
    return frames


def test_the_echo_check_right_after_a_fit_uses_its_path(monkeypatch):
    """floor.py's echo check comes a frame or two after the confirmation fitted the echo path
    (hidden_before): it takes that path instead of fitting again (20-50 ms on the audio
    thread, right as the tutor is to pause) - and says what a fresh fit says. A path older
    than PATH_REUSE_FRAMES is not taken."""
    import tutor_app.speech.double_talk as dt
    from tutor_app.call.listen.frames import PATH_REUSE_FRAMES

    fits = []
    real = dt.echo_path
    monkeypatch.setattr(dt, "echo_path", lambda *a: fits.append(1) or real(*a))
    blocks = _blocks_over_the_tutor(3.0, seconds=4.5)
    start = 3 * SAMPLE_RATE // 512
    frames = _frames(blocks[:start + 8])
    frames.hidden_before(start)  # the speech confirmed: one fit
    frames.append(*blocks[start + 8])
    reused = frames.echo_removed_db(frames.end - 8, frames.end)
    assert len(fits) == 1  # no second fit
    fresh = _frames(blocks[:start + 9]).echo_removed_db(frames.end - 8, frames.end)
    assert reused is not None and fresh is not None and abs(reused - fresh) < 1.0
    assert reused < 6.0  # the learner's voice is not removed (floor.py MAX_REMOVED_DB)
    for block in blocks[start + 9:start + 9 + PATH_REUSE_FRAMES]:
        frames.append(*block)
    fits.clear()
    frames.echo_removed_db(frames.end - 8, frames.end)
    assert len(fits) == 1  # the path was fitted too long ago: afresh


def test_the_echo_alone_is_removed_by_the_reused_path():
    blocks = _blocks_over_the_tutor(9.0, seconds=3.4)  # the learner never speaks
    frames = _frames(blocks[:-1])
    frames.hidden_before(frames.end - 10)
    frames.append(*blocks[-1])
    removed = frames.echo_removed_db(frames.end - 8, frames.end)
    assert removed is not None and removed > 12.0  # the tutor's echo alone: removed


def test_the_first_voiced_frame_over_the_tutor_fits_the_path_its_pause_uses(monkeypatch):
    """The echo path is fitted at the first voiced frame over the tutor (the audio thread
    catches up on the frames after it); the confirmation and the echo check that pauses the
    tutor use it: no fit on the frames that duck and pause."""
    import tutor_app.speech.double_talk as dt
    from tests.unit.test_listener import _Port as _CallPort

    fits: list[int] = []  # the frame each fit was made on
    real = dt.echo_path
    monkeypatch.setattr(dt, "echo_path", lambda *a: fits.append(listener.frames_seen) or real(*a))
    port = _CallPort(stt="Sorry, can I ask you something?", speaking=True)
    at_pause: list[int] = []
    pause = port.pause
    port.pause = lambda: (at_pause.append(len(fits)), pause())[1]  # type: ignore[method-assign]
    listener = Listener(LoopOptions(echo=EchoOptions(mode="speaker")), FakeVad(), port)
    far = _speechlike(31, 4.0)
    t = np.arange(SAMPLE_RATE) / SAMPLE_RATE
    voice = sum(np.sin(2 * np.pi * 150 * k * t) for k in range(2, 12)).astype(np.float32) * 0.05  # voiced, open
    raw, cleaned = _room(far), np.zeros_like(far)
    raw[3 * SAMPLE_RATE:] += voice
    cleaned[3 * SAMPLE_RATE:] = voice  # what the canceller passed: the learner alone
    for k in range(far.size // 512):
        block = slice(k * 512, (k + 1) * 512)
        listener.feed(cleaned[block], raw=raw[block], far=far[block])
    assert port.ducks[:1] == [True] and port.pauses == 1
    assert at_pause == [1]  # one fit before the pause ...
    assert fits[0] == 3 * SAMPLE_RATE // 512  # ... on the learner's first voiced frame


def test_fft_sizes_are_the_smallest_fast_ones():
    from tutor_app.speech.double_talk import _fft_size

    def smooth(n: int) -> bool:
        for p in (2, 3, 5):
            while n % p == 0:
                n //= p
        return n == 1

    for n in range(2, 3000):
        size = _fft_size(n)
        assert size >= n and smooth(size)
        assert not any(smooth(m) for m in range(n, size))


def test_the_start_of_the_copy_bounds_the_search():
    assert speech_onset(np.zeros(4096), np.zeros(4096), np.zeros(4096), 0) == 0
    assert speech_onset(np.zeros(4096), np.zeros(4096), np.zeros(4096), 4096) == 4096  # nothing after it


class _Port:
    """The ListenerPort of a call whose tutor is audible while `speaking`."""

    def __init__(self) -> None:
        self.speaking = False
        self.heard: list[np.ndarray] = []

    def emit(self, event) -> None:
        pass

    def tutor_audible(self) -> bool:
        return self.speaking

    def interrupt(self) -> None:
        self.speaking = False

    def pause(self) -> None:
        pass

    def resume(self) -> None:
        pass

    def duck(self, on: bool) -> None:
        pass

    def transcribe_later(self, audio, expect=None):
        self.heard.append(audio)
        done: Future = Future()
        done.set_result(None)
        return done

    def hear_ahead(self, audio) -> None:
        pass

    def judge_later(self, audio, transcript):
        return None

    def utterance(self, audio, eos, transcript, speculative, held=False):
        self.heard.append(audio)

    def backchannel(self, text: str) -> None:
        pass

    def tutor_words(self) -> str:
        return ""


def _listen(speaking: bool) -> tuple[_Port, np.ndarray, np.ndarray]:
    """3 s of the tutor alone, then 1 s of the learner over it, then silence. The
    'cleaned' stream a canceller would give is the learner at a tenth of their level
    (what AEC3's suppressor does at double talk); raw and far are what it was given."""
    port = _Port()
    port.speaking = speaking
    listener = Listener(LoopOptions(echo=EchoOptions(mode=SPEAKER)), FakeVad(), port)
    far = _speechlike(5, 6.0)
    learner = np.zeros_like(far)
    learner[3 * SAMPLE_RATE:4 * SAMPLE_RATE] = _speechlike(6, 1.0)
    raw = _room(far) + learner
    cleaned = (0.1 * learner).astype(np.float32)
    for i in range(0, far.size, 1600):
        listener.feed(cleaned[i:i + 1600], raw[i:i + 1600], far[i:i + 1600])
    return port, learner, cleaned


def test_speech_over_the_tutor_is_transcribed_from_the_linear_copy():
    port, learner, _ = _listen(speaking=True)
    assert port.heard
    audio = port.heard[-1]
    peak = float(np.max(np.abs(audio)))
    assert peak > 0.5 * float(np.max(np.abs(learner)))  # the learner at full level, not AEC3's tenth


def test_speech_when_the_tutor_is_quiet_is_the_cancellers_output():
    port, learner, _ = _listen(speaking=False)
    assert port.heard
    assert float(np.max(np.abs(port.heard[-1]))) <= 0.11 * float(np.max(np.abs(learner)))


# -- short sounds over the tutor: kept backchannels ---------------------------------------
class _Transcripts(_Port):
    """Whisper's seam: every clip 'says' `text`; records what it was told to expect."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text
        self.expected: list = []
        self.kept: list[str] = []

    def transcribe_later(self, audio, expect=None):
        self.heard.append(audio)
        self.expected.append(expect)
        done: Future = Future()
        done.set_result(SimpleNamespace(text=self.text))
        return done

    def backchannel(self, text: str) -> None:
        self.kept.append(text)


def _short(text: str) -> tuple[ShortSpeech, _Transcripts]:
    port = _Transcripts(text)
    return ShortSpeech(LoopOptions(echo=EchoOptions(mode=SPEAKER)), port), port


def _stretch(short: ShortSpeech, voiced: int, audible: bool = True, quiet: int = 60) -> list:
    """Frames 0-9 quiet, `voiced` frames of voice, then quiet: the spans it hands back."""
    probabilities = [0.0] * 10 + [0.9] * voiced + [0.0] * quiet
    spans = [short.frame(i, p, audible) for i, p in enumerate(probabilities)]
    return [(i, s) for i, s in enumerate(spans) if s is not None]


def test_a_short_stretch_is_looked_at_a_second_after_it_ended():
    short, _ = _short("Mm-hmm.")
    found = _stretch(short, voiced=3)
    # voice in frames 10-12: ended after over_tutor_ms of quiet, looked at 31 frames (1 s) later
    assert found == [(12 + frames(EndpointingOptions().over_tutor_ms) + 31, (10, 13))]


def test_no_stretch_when_the_tutor_is_silent_or_the_voice_too_long():
    short, _ = _short("Mm-hmm.")
    assert _stretch(short, voiced=3, audible=False) == []
    assert _stretch(short, voiced=40) == []  # 1.3 s: longer than any backchannel


def test_real_speech_drops_a_waiting_stretch():
    short, _ = _short("Mm-hmm.")
    for i, p in enumerate([0.0] * 10 + [0.9] * 3 + [0.0] * 8):
        short.frame(i, p, True)
    short.reset()  # the segmenter confirmed speech: that path takes over
    assert [short.frame(i, 0.0, True) for i in range(21, 80)] == [None] * 59


def _copy(learner_level: float) -> tuple[LinearCopy, int, int]:
    """3 s of the tutor's echo with a 0.3 s sound at 1.5 s, through the linear removal."""
    far = _speechlike(7, 3.0)
    near = np.zeros_like(far)
    near[24000:28800] = learner_level * _speechlike(8, 0.3)
    raw = _room(far) + near
    return LinearCopy(remove_echo_linearly(raw, far), raw, far, 0), 24000, 28800


def test_a_second_voice_is_transcribed_expecting_a_backchannel_and_kept():
    short, port = _short("In the Mm-hmm.")
    copy, start, end = _copy(1.0)
    short.check(copy, start, end, pad=4608, until=57)
    short.poll()
    assert port.kept == ["Mm-hmm"]
    assert port.expected[0].terms[0] == "Mm-hmm"
    assert port.heard[0].size == end + 4608 - (start - 512)
    assert short.kept_until == 57  # no utterance starts in it (Segmenter.forget_before)


def test_a_leak_of_the_echo_alone_is_not_transcribed():
    short, port = _short("Mm-hmm.")
    copy, start, end = _copy(0.0)  # nothing but the tutor in the stretch
    short.check(copy, start, end, pad=4608, until=57)
    short.poll()
    assert port.heard == [] and port.kept == [] and short.kept_until == 0


def test_words_that_are_not_a_backchannel_are_not_kept():
    short, port = _short("I think we should talk about it")
    copy, start, end = _copy(1.0)
    short.check(copy, start, end, pad=4608, until=57)
    short.poll()
    assert len(port.heard) == 1 and port.kept == []
    assert short.kept_until == 0  # maybe a sentence's first words AEC3 hid: they stay its start


@pytest.mark.parametrize(("text", "kept"), [("Mm-hmm.", "Mm-hmm"), ("In the Mm-hmm.", "Mm-hmm"),
                                            ("Yeah, okay.", "Yeah okay"), ("In a month.", ""),
                                            ("I think that is right", ""), ("", ""),
                                            ("Oh, I see.", "Oh I see"), ("Yeah, but wait", ""), ("Okay, sorry", "")])
def test_backchannel_words_in_a_short_transcript(text, kept):
    assert backchannel_in(text) == kept


def test_one_sound_heard_as_two_stretches_is_looked_at_once():
    short, _ = _short("Mm-hmm.")
    probabilities = [0.0] * 10 + [0.9] * 3 + [0.0] * 7 + [0.9] * 2 + [0.0] * 60
    spans = [s for s in (short.frame(i, p, True) for i, p in enumerate(probabilities)) if s is not None]
    assert spans == [(10, 22)]


@pytest.mark.parametrize(("heard", "own"), [("So well done for gold.", True), ("well done", True),
                                            ("Sorry, can I ask you something?", False), ("done", True),
                                            ("wait", False),
                                            ("Wait, what did you say about the job?", False)])
def test_the_tutors_own_words_heard_back(heard, own):
    said = "Interviews can be stressful, so well done for going. First, tell me which company it was."
    assert is_own_words(heard, said) is own


@pytest.mark.parametrize(("heard", "what"), [
    ("Mm-hmm.", BACKCHANNEL), ("Okay, Mm-hmm.", BACKCHANNEL), ("Mm-hmm. Mm-hmm. Mm-hmm.", BACKCHANNEL),
    ("Wait.", INTERRUPTION), ("Sorry, can I", INTERRUPTION), ("Can I ask you something?", INTERRUPTION),
    ("In a month.", NOTHING), ("", NOTHING), ("so well done for gold", NOTHING),
    ("Okay, no more.", BACKCHANNEL)])  # Whisper's "no more" of an "mm-hmm": "no" asks for no floor
def test_what_short_speech_over_the_tutor_is(heard, what):
    said = "Interviews can be stressful, so well done for going."
    assert over_the_tutor(heard, said, voiced_ms=800) == what


@pytest.mark.parametrize(("heard", "voiced_ms", "what", "kept"), [
    # two "mm-hmm"s and the tutor's residual made into words: more than 0.6 s of voice holds
    ("Mm-hmm. So, I'm gonna go for go. Mm-hmm.", 600, BACKCHANNEL, "Mm-hmm Mm-hmm"),
    ("Mm-hmm. So, I'm gonna go for go. Mm-hmm.", 3000, INTERRUPTION, ""),  # as many as the voice holds
    ("Okay, can I ask you something?", 600, INTERRUPTION, ""),  # a sentence may begin "okay": no hum
    ("Mm-hmm, but wait a second", 400, INTERRUPTION, ""),  # a floor word always interrupts
    ("And I'm in the m-m-hmm.", 600, BACKCHANNEL, "m-m-hmm"),  # a hum however Whisper spells it
    ("Can I m-m-hmm?", 600, BACKCHANNEL, "m-m-hmm"),
    ("Give them a", 600, NOTHING, ""),  # a few words of the echo alone: nothing to keep, nothing to stop
    ("Mm-hmm Mm-hmm Mm-hmm Mm-hmm", 480, BACKCHANNEL, "Mm-hmm"),  # Whisper repeating one hum
    # nine words of 416 ms of voice (a looped-back hum and the tutor's residual, garbled):
    # no learner said them; a floor word among them would still interrupt
    ("So tell me the company and the job it is about", 416, NOTHING, ""),
    ("Well then tell me, wait, what it is about", 416, INTERRUPTION, ""),
])
def test_more_words_than_the_voice_can_hold_are_the_echo(heard, voiced_ms, what, kept):
    said = "Interviews can be stressful, so well done for going."
    assert over_the_tutor(heard, said, voiced_ms) == what
    if what == BACKCHANNEL:
        assert backchannel_heard(heard, voiced_ms) == kept


@pytest.mark.parametrize(("heard", "what"), [
    ("Wait", INTERRUPTION), ("Sorry, can I", INTERRUPTION),
    ("Can I ask you something?", NOTHING),  # at 320 ms of voice: more than a word or two is the echo
    ("Give them a good", NOTHING), ("Mm-hmm.", BACKCHANNEL), ("Okay, no more.", BACKCHANNEL)])
def test_words_so_far_interrupt_only_by_a_floor_word(heard, what):
    assert over_the_tutor(heard, "Interviews can be stressful.", 320, so_far=True) == what


class _CountingPort(_Port):
    def __init__(self) -> None:
        super().__init__()
        self.interruptions = 0
        self.pauses = 0
        self.paused = False  # the player plays silence: the far end is quiet

    def interrupt(self) -> None:
        self.interruptions += 1
        super().interrupt()

    def pause(self) -> None:
        self.pauses += 1
        self.paused = True

    def resume(self) -> None:
        self.paused = False


def _feed(listener: Listener, cleaned: float, raw: float, blocks: int) -> None:
    """`blocks` of 100 ms: AEC3's output at level `cleaned` from a microphone at `raw`; the
    far end at 0.1 while the tutor plays, quiet once it paused."""
    for _ in range(blocks):
        far = 0.0 if getattr(listener.port, "paused", False) else 0.1
        listener.feed(np.full(1600, cleaned, np.float32), np.full(1600, raw, np.float32),
                      np.full(1600, far, np.float32))


def _leak_after_a_stall(broke: bool) -> tuple[_CountingPort, Listener]:
    """The tutor audible, its echo in the microphone at 0.1 and cancelled; a block in which
    the canceller's pairing broke (or not); then 2 s of the echo leaking through AEC3
    almost whole (0.09: the VAD takes it for voice, louder than gated mode's 0.08 floor)."""
    port = _CountingPort()
    port.speaking = True
    listener = Listener(LoopOptions(echo=EchoOptions(mode=SPEAKER)), FakeVad(), port)
    _feed(listener, 0.0, 0.1, 10)
    listener.feed(np.zeros(1600, np.float32), np.full(1600, 0.1, np.float32), np.full(1600, 0.1, np.float32),
                  broke=broke)
    _feed(listener, 0.09, 0.1, 20)
    return port, listener


def test_after_a_stall_the_echo_leaking_through_does_not_stop_the_tutor():
    port, _ = _leak_after_a_stall(broke=False)
    # Without the break reported the leak is speech over the tutor, its words to decide (the
    # echo check asked at 900 ms calls it the tutor's echo: not paused, not stopped).
    assert port.interruptions == 0 and port.pauses == 0 and port.heard
    port, listener = _leak_after_a_stall(broke=True)
    assert port.interruptions == 0 and not port.heard  # gated for the rest of the reply: nothing heard
    port.speaking = False  # the reply ended: after the echo tail, full duplex again
    _feed(listener, 0.0, 0.0, 5)
    _feed(listener, 0.3, 0.3, 10)
    _feed(listener, 0.0, 0.0, 10)
    assert port.heard  # the learner's next turn


def test_frames_captured_before_the_pause_reached_the_speaker_do_not_end_the_tutors_turn():
    """The audio thread fell behind (it waited for the words of earlier speech): it pauses
    the tutor on frames it catches up on, which were captured while the tutor still played
    (their far end is loud). Those frames are not the learner talking on over the quiet."""
    port = _CountingPort()
    port.speaking = True
    listener = Listener(LoopOptions(echo=EchoOptions(mode=SPEAKER)), FakeVad(), port)
    _feed(listener, 0.0, 0.1, 10)
    voice = np.random.default_rng(3)  # a second voice in the microphone: not the echo the linear removal takes off
    for _ in range(20):  # 2 s of voice over the tutor, all captured before the pause
        raw = (0.1 + 0.1 * voice.standard_normal(1600)).astype(np.float32)
        listener.feed(np.full(1600, 0.09, np.float32), raw, np.full(1600, 0.1, np.float32))
    assert port.pauses == 1 and port.interruptions == 0
    _feed(listener, 0.09, 0.1, 7)  # the voice goes on once the speaker is quiet: 5 + 15 frames
    assert port.interruptions == 1


def test_after_a_stall_a_learner_who_speaks_up_still_stops_the_tutor():
    port, listener = _leak_after_a_stall(broke=True)
    _feed(listener, 0.3, 0.5, 6)  # 600 ms at 5x the echo in the microphone (the gated barge-in: 400 ms)
    assert port.interruptions == 1


def test_a_stall_right_as_a_reply_begins_is_no_barge_in():
    """The frames before the break were silence (the reply had just begun): they are no
    measure of the echo, so its raw level (0.1, over gated mode's 0.08 floor) is not "loud"."""
    port = _CountingPort()
    port.speaking = True
    listener = Listener(LoopOptions(echo=EchoOptions(mode=SPEAKER)), FakeVad(), port)
    silence = np.zeros(1536, np.float32)  # whole frames: none is half silence, half echo
    for _ in range(10):
        listener.feed(silence, silence, silence)
    listener.feed(silence, silence, silence, broke=True)
    for _ in range(20):  # 2 s of the echo, leaking through AEC3
        listener.feed(np.full(1536, 0.09, np.float32), np.full(1536, 0.1, np.float32), np.full(1536, 0.1, np.float32))
    assert port.interruptions == 0 and not port.heard


def test_a_break_while_the_tutor_is_quiet_changes_nothing():
    port = _CountingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode=SPEAKER)), FakeVad(), port)
    listener.feed(np.zeros(1600, dtype=np.float32), broke=True)
    port.speaking = True
    for _ in range(15):
        listener.feed(np.full(1600, 0.05, dtype=np.float32))
    assert port.interruptions == 1  # full duplex: speech over the tutor stops it
