"""A live call's speech recognition: the STT model, its one worker thread, the bias list,
and where the Listener's transcripts come from (its `TranscriptSource`).

`CallStt` owns the "stt" worker (one thread: decodes run one at a time, in order; made
before any thread of the call runs, shut down by the call's ordered stop) and decodes
with this call's bias list - the learner's names as Whisper's hotwords, read once per
call - on every decode, whole or part. Two sources:
- `Decoded` (call/listen/endpointing.py): each request decodes its span in full;
- `Streamed` (`RecognitionOptions.streaming`): a `StreamingTranscriber` hears the
  utterance while the learner speaks - at speech start it is reset, on voiced frames a
  pass over the utterance so far is handed to the worker when one is due (never two
  waiting: a pass is not due while one is queued or decoding) - and a request at the end
  decodes only the words the passes have not agreed on. A pass that has not started when
  the end is asked for is skipped; one decoding then cannot be stopped, and the end
  waits for it. Speech over the tutor (its words judge a short sound) and a span that
  does not start where the passes started are decoded in full.
A request nobody wants any more (a guess at a pause the learner talked on through) is
`drop`ped: not started, it never runs; decoding, it stops at its next stage (the encoder,
the decoder, the alignment: speech/stt.py), so the guess at the real end waits at most
for one stage. The audio thread only submits and drops; it never waits on a decode here.
While the learner speaks, `hear_ahead` runs a decode's first stage, the VAD pass, over
the utterance so far (speech/vad.py reads a longer clip on from there). A request's
`encoded` Event says when its encoder has run (the end-of-turn judge waits for
it, so that the two do not share the cores: call/listen/judge.py).
"""
from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, cast

from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE, AudioClip, Transcript

if TYPE_CHECKING:
    import numpy as np

    from tutor_app.call.options import RecognitionOptions
    from tutor_app.speech.bias import BiasList
    from tutor_app.speech.ports import SpeechToText
    from tutor_app.speech.streaming import StreamingTranscriber, StreamOptions

log = logging.getLogger(__name__)


class CallStt:
    """The call's STT: `stt` (a SpeechToText, or a zero-argument factory loaded on first
    use), `bias` (reads this call's bias list; called once, on the worker), `options`;
    `pool`: the worker (tests give one they run by hand)."""

    def __init__(self, stt: SpeechToText | Callable[[], SpeechToText], bias: Callable[[], BiasList | None],
                 options: RecognitionOptions, pool: Executor | None = None) -> None:
        self._stt = stt
        self._bias_of = bias
        self._bias: tuple[BiasList | None] | None = None
        self.options = options
        self._lock = threading.Lock()
        self.pool = pool or ThreadPoolExecutor(1, thread_name_prefix="call-stt")
        # Each decode still to finish -> its stop (`drop`); gone with the Future. Its own lock:
        # the audio thread drops, and must never wait while `model` loads under `_lock`.
        self._stops: weakref.WeakKeyDictionary[Future[Transcript], threading.Event] = weakref.WeakKeyDictionary()
        self._stops_lock = threading.Lock()
        # Each request -> its `encoded` Event (set once its encoder has run); gone with the Future.
        self._encoded: weakref.WeakKeyDictionary[Future[Transcript], threading.Event] = weakref.WeakKeyDictionary()
        self._ahead_waiting = False  # a `hear_ahead` is queued on the worker

    @property
    def model(self) -> SpeechToText:
        with self._lock:  # the audio, turns and STT threads may all ask first
            if callable(self._stt) and not hasattr(self._stt, "transcribe"):
                self._stt = self._stt()
            return cast("SpeechToText", self._stt)  # a factory was called above

    def loaded(self) -> SpeechToText | None:
        """The model if it is loaded already (the audio thread never loads it)."""
        with self._lock:
            return None if callable(self._stt) and not hasattr(self._stt, "transcribe") else self._stt

    @property
    def bias(self) -> BiasList | None:
        if self._bias is None:
            self._bias = (self._bias_of(),)
        return self._bias[0]

    def transcribe(self, audio: np.ndarray, expect: BiasList | None = None,
                   stop: threading.Event | None = None, encoded: threading.Event | None = None) -> Transcript:
        """The whole of `audio` (16 kHz), now, on this thread. `expect`: the words to expect
        instead of this call's names (a backchannel); `stop` set: DecodeStopped (speech/stt.py);
        `encoded`: set once the encoder has run (`transcribe_later` sets it when the request
        is over, whatever happened)."""
        from tutor_app.speech.bias import transcribe_with
        from tutor_app.speech.stt import stop_if_asked

        stop_if_asked(stop)
        stt, bias, window = self.model, expect or self.bias, self.options.window
        # The learner's turns: the same decode as `transcribe`, on an encoder window sized to
        # the speech. Not a short sound over the tutor (`expect`): on the sized window its
        # looped-back "Yeah." came out as more words, and 9 of 15 backchannels cut the
        # tutor's reply (`bench echo`; 0 of 10 on Whisper's own window).
        if window is not None and expect is None and hasattr(stt, "transcribe_part"):
            signals = {k: v for k, v in (("stop", stop), ("encoded", encoded)) if v is not None}
            part: Transcript = stt.transcribe_part(audio, 0, "", bias or None, window_s=window, **signals)
            return part
        transcript: Transcript = transcribe_with(stt, AudioClip(audio, SAMPLE_RATE), bias)
        return transcript

    def transcribe_part(self, audio: np.ndarray, start: int = 0, prompt: str = "", bias: BiasList | None = None,
                        window_s: float | None = None) -> Transcript:
        """A `PartTranscriber` for the streaming transcriber: this call's model and names."""
        model: Any = self.model
        part: Transcript = model.transcribe_part(audio, start, prompt, bias or self.bias,
                                                 **({} if window_s is None else {"window_s": window_s}))
        return part

    def transcribe_later(self, audio: np.ndarray, expect: BiasList | None = None) -> Future[Transcript]:
        """`transcribe` on the worker (so it can start before the turn ends); `drop` stops it."""
        stop, encoded = threading.Event(), threading.Event()
        future = self.pool.submit(self.transcribe, audio, expect, stop, encoded)
        future.add_done_callback(lambda _f: encoded.set())  # dropped before it ran: never encodes
        with self._stops_lock:
            self._encoded[future] = encoded
            if not future.done():
                self._stops[future] = stop
        return future

    def encoded(self, future: Future[Any]) -> threading.Event | None:
        """Set once the encoder of request `future` (`transcribe_later`) has run, or the
        request is over without it (dropped, failed); None: not a request of this worker's."""
        with self._stops_lock:
            return self._encoded.get(future)

    def hear_ahead(self, audio: np.ndarray) -> None:
        """The utterance so far (16 kHz), while the learner speaks: the worker runs the
        decode's VAD pass over it now, so that the end's decode reads only the frames after
        (speech/vad.py). Not while one is still waiting; not before the model is loaded."""
        read = getattr(getattr(self.loaded(), "vad", None), "frame_probabilities", None)
        if read is None:
            return
        with self._stops_lock:
            if self._ahead_waiting:
                return
            self._ahead_waiting = True

        def run() -> None:
            with self._stops_lock:
                self._ahead_waiting = False
            try:
                read(audio)
            except Exception as exc:  # noqa: BLE001 - only ahead: the end's decode reads it anyway
                log.warning("the VAD pass ahead failed: %s", type(exc).__name__)

        self.pool.submit(run)

    def drop(self, future: Future[Any]) -> None:
        """Nobody wants `future`'s words: it never starts, or its decode stops at its next
        stage (its Future then raises DecodeStopped). Done already: nothing changes."""
        future.cancel()
        with self._stops_lock:
            stop = self._stops.pop(future, None)
        if stop is not None:
            stop.set()

    def source(self) -> Streamed | None:
        """The Listener's transcript source: None for `Decoded` (the default)."""
        return Streamed(self) if self.options.streaming else None

    def shutdown(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


class Streamed:
    """A `TranscriptSource` that recognises while the learner speaks (see the module)."""

    def __init__(self, stt: CallStt, options: StreamOptions | None = None) -> None:
        self._stt = stt
        self._options = options
        self._streamer: StreamingTranscriber | None = None
        self._start: int | None = None  # the utterance's first frame the passes hear from; None: not streaming
        self.passes = 0  # handed to the worker (tests, logs)

    @property
    def streamer(self) -> StreamingTranscriber | None:
        return self._streamer

    def started(self, start: int, streamable: bool = True) -> None:
        """Speech started at frame `start`: the passes of the utterance before are void.
        `streamable` False (speech over the tutor): this utterance is decoded at the end only."""
        if self._streamer is not None:
            self._streamer.reset()
        self._start = start if streamable and self._ready() else None

    def heard(self, start: int, end: int, words: Callable[[], np.ndarray]) -> None:
        """Frames [start, end) of the utterance are in, the last one voiced: a pass when
        one is due. `words()` gives their audio (made only then)."""
        streamer = self._streamer
        if streamer is None or start != self._start or not streamer.due((end - start) * FRAME_SAMPLES):
            return
        job = streamer.pass_job(words())
        self.passes += 1
        self._stt.pool.submit(_quiet(job))

    def drop(self, future: Future[Transcript]) -> None:
        """A request's words are not wanted any more (CallStt.drop)."""
        self._stt.drop(future)

    def request(self, start: int, end: int, audio: np.ndarray,
                expect: BiasList | None = None) -> Future[Transcript]:
        """The words of [start, end): the passes' agreed words plus a decode of the rest."""
        streamer = self._streamer if self._start == start and expect is None else None
        if streamer is None:
            return self._stt.transcribe_later(audio, expect)
        return self._stt.pool.submit(streamer.finish_job(audio))

    def _ready(self) -> bool:
        """A streaming transcriber, made once the model is loaded (never on the audio
        thread's account) if it decodes parts of an utterance."""
        if self._streamer is None:
            model = self._stt.loaded()
            if model is None or not hasattr(model, "transcribe_part"):
                return False
            from tutor_app.speech.streaming import StreamingTranscriber, StreamOptions

            options = self._options or StreamOptions(window_s=self._stt.options.window)
            self._streamer = StreamingTranscriber(self._stt, None, options)  # the names: CallStt adds them
        return True


def _quiet(job: Callable[[], Any]) -> Callable[[], None]:
    """A pass whose failure only costs its words (the end decodes them instead)."""
    def run() -> None:
        try:
            job()
        except Exception as exc:  # noqa: BLE001 - a failed pass: the end's decode covers its audio
            log.warning("a streaming pass failed: %s", type(exc).__name__)
    return run
