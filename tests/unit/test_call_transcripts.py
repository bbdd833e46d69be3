"""Streaming recognition inside the live call (call/transcripts.py `Streamed` as the
Listener's transcript source), frame-scripted: the VAD answers from the frames' level, the
decoder from a script of words with times (test_speech_streaming.py), and the STT worker
is a pool the test runs by hand - so what is queued, skipped and decoded is exact."""
from __future__ import annotations

from concurrent.futures import Executor, Future
from types import SimpleNamespace

import numpy as np

from tests.unit.call_fakes import FakeVad
from tests.unit.test_speech_streaming import ScriptedDecoder
from tutor_app.call.listen.listener import Listener
from tutor_app.call.listen.overlap import EXPECT
from tutor_app.call.options import EchoOptions, LoopOptions, RecognitionOptions
from tutor_app.call.transcripts import CallStt, Streamed
from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE
from tutor_app.speech.bias import BiasList
from tutor_app.speech.streaming import StreamOptions

NAMES = BiasList(("Minji",))


class HandPool(Executor):
    """The STT worker, run by the test: jobs wait until `run()`; cancelled ones never run."""

    def __init__(self) -> None:
        self.jobs: list[tuple[Future, object]] = []

    def submit(self, fn, /, *args, **kwargs) -> Future:  # noqa: ANN001 - Executor's signature
        future: Future = Future()
        self.jobs.append((future, lambda: fn(*args, **kwargs)))
        return future

    def run(self) -> int:
        """Everything queued, in order; returns how many jobs ran."""
        ran = 0
        while self.jobs:
            future, job = self.jobs.pop(0)
            if not future.set_running_or_notify_cancel():
                continue
            ran += 1
            try:
                future.set_result(job())  # type: ignore[operator]
            except Exception as exc:  # noqa: BLE001 - as a real pool: the Future holds it
                future.set_exception(exc)
        return ran


class Decoder(ScriptedDecoder):
    """The scripted decoder, plus whole decodes (speech over the tutor) and the window asked for."""

    def __init__(self) -> None:
        super().__init__()
        self.whole: list[int] = []

    def transcribe_part(self, audio, start=0, prompt="", bias=None, window_s=None):  # noqa: ANN001
        self.windows = [*getattr(self, "windows", []), window_s]
        return super().transcribe_part(audio, start, prompt, bias)

    def transcribe(self, clip, bias=None):  # noqa: ANN001
        self.whole.append(len(clip.samples))
        return SimpleNamespace(text="mm-hmm")


class Port:
    """The call as the Listener sees it: no judge (the 600 ms silence ends a turn)."""

    def __init__(self, speaking: bool = False) -> None:
        self.speaking = speaking
        self.utterances: list[tuple[np.ndarray, Future, bool]] = []

    def emit(self, event) -> None: ...  # noqa: ANN001
    def tutor_audible(self) -> bool: return self.speaking
    def interrupt(self) -> None: ...
    def duck(self, on: bool) -> None: ...
    def transcribe_later(self, audio, expect=None): raise AssertionError("the source decodes")  # noqa: ANN001
    def judge_later(self, audio, transcript): return None  # noqa: ANN001
    def hear_ahead(self, audio) -> None: ...  # noqa: ANN001
    def backchannel(self, text: str) -> None: ...
    def tutor_words(self) -> str: return ""

    def utterance(self, audio, eos, transcript, speculative, held=False):  # noqa: ANN001
        self.utterances.append((audio, transcript, speculative))


def _call(window_s: float = 30.0, speaking: bool = False):
    decoder, pool, port = Decoder(), HandPool(), Port(speaking)
    stt = CallStt(decoder, lambda: NAMES, RecognitionOptions(streaming=True, window_s=window_s), pool=pool)
    source = Streamed(stt, StreamOptions(context_s=0.0, window_s=stt.options.window))
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port, source)
    return listener, source, decoder, pool, port


def _feed(listener: Listener, amplitude: float, frames: int) -> None:
    for _ in range(frames):
        listener.feed(np.full(FRAME_SAMPLES, amplitude, np.float32))


def _seconds(frames: int) -> float:
    return frames * FRAME_SAMPLES / SAMPLE_RATE


def test_passes_while_the_learner_speaks_commit_and_the_end_decodes_only_the_tail():
    listener, source, decoder, pool, port = _call()
    _feed(listener, 0.0, 10)
    for _ in range(4):  # ~1.3 s of voice at a time; the worker keeps up
        _feed(listener, 0.3, 40)
        assert len(pool.jobs) <= 1  # never two passes waiting
        pool.run()
    assert source.passes >= 3 and source.streamer is not None
    assert source.streamer.committed_text.startswith("I went to the market")  # agreed by two passes
    cut = source.streamer.committed_until
    assert cut > 0
    _feed(listener, 0.0, 25)  # the 600 ms silence ends the turn (no judge)
    assert len(port.utterances) == 1
    audio, transcript, speculative = port.utterances[0]
    assert not transcript.done()  # asked 64 ms into the silence, decoded on the worker
    pool.run()
    assert transcript.result().text == "I went to the market yesterday."
    assert decoder.calls[-1]["start"] == round(cut * SAMPLE_RATE)  # the end decoded the tail only
    assert all(call["bias"] == NAMES for call in decoder.calls)  # the names on every decode
    assert decoder.windows == [None] * len(decoder.calls)  # Whisper's own window (30 s)


def test_a_pass_not_started_when_the_silence_asks_for_the_end_is_skipped():
    listener, source, decoder, pool, port = _call()
    _feed(listener, 0.0, 10)
    _feed(listener, 0.3, 40)
    pool.run()
    _feed(listener, 0.3, 100)  # a second pass is queued, not run: the worker is busy elsewhere
    assert len(pool.jobs) == 1
    _feed(listener, 0.0, 25)
    assert pool.run() == 2  # the stale pass and the end's decode
    assert source.streamer is not None and source.streamer.stats.skipped == 1
    assert len(decoder.calls) == 2  # the first pass and the end: the stale pass decoded nothing
    assert port.utterances[0][1].result().text == "I went to the market yesterday."


def test_speech_start_resets_the_passes_of_the_utterance_before():
    listener, source, decoder, pool, port = _call()
    _feed(listener, 0.0, 10)
    _feed(listener, 0.3, 40)
    pool.run()
    _feed(listener, 0.3, 40)
    pool.run()
    assert source.streamer is not None and source.streamer.committed_text
    _feed(listener, 0.3, 40)  # a pass queued for this utterance...
    _feed(listener, 0.0, 25)  # ...which ends here (its end queued too)
    _feed(listener, 0.3, 10)  # a new utterance starts
    assert source.streamer.committed_text == ""  # nothing of the last one carries over
    calls = len(decoder.calls)
    pool.run()
    assert len(decoder.calls) == calls + 1  # the end of the first turn only: its stale pass is void
    assert port.utterances[0][1].result().text.startswith("I went")
    _feed(listener, 0.3, 30)
    pool.run()
    assert decoder.calls[-1]["start"] == 0  # the new utterance's first pass starts from its start


def test_the_encoder_window_is_asked_for_on_every_decode():
    listener, _source, decoder, pool, _port = _call(window_s=15.0)
    _feed(listener, 0.0, 10)
    _feed(listener, 0.3, 40)
    pool.run()
    _feed(listener, 0.0, 25)
    pool.run()
    assert decoder.windows and set(decoder.windows) == {15.0}


def test_a_short_sound_over_the_tutor_is_decoded_on_whispers_own_window():
    """Its words decide whether the tutor goes on: the sized window made more words of it."""
    decoder = Decoder()
    stt = CallStt(decoder, lambda: NAMES, RecognitionOptions(streaming=False, window_s=15.0), pool=HandPool())
    assert stt.transcribe(np.zeros(8000, np.float32), EXPECT).text == "mm-hmm"
    assert decoder.whole == [8000] and not getattr(decoder, "windows", [])
    stt.transcribe(np.zeros(8000, np.float32))  # a turn of the learner's: the sized window
    assert decoder.windows == [15.0]


def test_speech_over_the_tutor_is_not_streamed_but_decoded_whole():
    listener, source, decoder, pool, port = _call(speaking=True)
    _feed(listener, 0.0, 10)
    _feed(listener, 0.3, 12)  # a short sound over the tutor: its words judge it
    pool.run()
    _feed(listener, 0.0, 4)  # its words asked 64 ms into the silence
    pool.run()
    _feed(listener, 0.0, 26)
    assert source.passes == 0 and not decoder.calls and decoder.whole
    assert listener.ends == {"backchannel": 1}


def test_no_streaming_before_the_model_is_loaded():
    """The audio thread never loads the model: until it is, turns are decoded at their end."""
    pool = HandPool()
    loaded: list[Decoder] = []
    stt = CallStt(lambda: loaded.append(Decoder()) or loaded[0], lambda: None,
                  RecognitionOptions(streaming=True), pool=pool)
    source = Streamed(stt)
    source.started(0)
    source.heard(0, 100, lambda: np.zeros(100 * FRAME_SAMPLES, np.float32))
    assert not loaded and not pool.jobs and source.passes == 0
    assert _seconds(100) > 1  # long enough for a pass, had the model been there


def test_the_call_options_carry_the_recognition_settings():
    from tutor_app.settings import SpeechSettings

    def options(**speech):
        settings = SimpleNamespace(speech=SpeechSettings(audio_mode="headset", **speech),
                                   tutor=SimpleNamespace(level="beginner"))
        return LoopOptions.from_settings(settings).recognition

    assert options() == RecognitionOptions(streaming=False, window_s=10.0) and options().window == 10.0
    assert options(stt_streaming=True, stt_call_window_s=30).streaming and options(stt_call_window_s=30).window is None
    assert options(stt_call_window_s=3).window is None  # out of bounds: Whisper's own window
