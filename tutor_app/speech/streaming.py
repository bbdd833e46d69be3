"""Recognition while the learner speaks, so that only the last words are decoded at the end.

`StreamingTranscriber` is given the growing utterance (16 kHz float32 from its first
sample) about once a second of new audio and decodes its end; the words two consecutive
decodes agree on are committed (LocalAgreement-2, speech/streaming_agreement.py), and at
a pause all of whose words before it are committed the audio is cut: what lies more than
`context_s` before the last cut is never decoded again. At the end of the turn `finish`
decodes only that tail and returns the whole utterance's Transcript, as
`SpeechToText.transcribe` would (the VAD still sees all of it: pauses, speech seconds).

It owns no thread and no model: the decode is an injected `PartTranscriber`
(`WhisperStt.transcribe_part`), so tests script it word by word. Threads, for a live
call: the audio thread asks `due(samples)` (cheap) and takes `pass_job(audio)` /
`finish_job(audio)`, callables it hands to the STT worker (one thread, in order); `reset()`
at a new utterance voids whatever is still queued or decoding for the old one. A pass
that has not started when the end is asked for is skipped (it would only delay the end).
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from tutor_app.core.types import SAMPLE_RATE, Transcript
from tutor_app.speech.streaming_agreement import (
    Heard,
    agreed,
    drop_repeat,
    heard_words,
    pause_cut,
    prompt_of,
    segments_of,
    text_of,
    word_cut,
)

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from tutor_app.speech.bias import BiasList
    from tutor_app.speech.ports import PartTranscriber

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class StreamOptions:
    step_s: float = 1.0  # a pass is due after this much new audio (the caller may count voice only)
    first_pass_s: float = 1.0  # no pass on less audio than this: too little for Whisper to settle
    # A decode starts at the latest cut at least this long before the audio's end (the
    # utterance's start if none): Whisper tiny.en hears a word better with the words
    # around it than after a cut. The words between that cut and the last one are decoded
    # again (and, at the end, taken from that decode). 3 s: the shared and pause clips'
    # WER as a whole decode's; 2 s: +2.5 points (`tutor-app bench stt-stream`).
    context_s: float = 3.0
    # The final text before the decode's start given as Whisper's prompt (whisper_streaming
    # gives 200 characters). 0: none - with tiny.en a prompt cost 1.6 points of WER (it
    # skipped words the prompt seemed to hold: "... can do for you | ask what you can do
    # for your country" -> "... for you country").
    prompt_chars: int = 0
    # No pause to cut at for this long after the cut: cut between two committed words
    # instead (0: only at pauses). A cut inside speech costs words (Whisper hears a word's
    # tail or loses a head): `tutor-app bench stt-stream --word-cut S` measures it.
    word_cut_s: float = 0.0
    # Uncommitted audio past this (decodes that keep disagreeing) makes the words that end
    # `settle_s` before the audio does final: a Whisper window is 30 s.
    max_pending_s: float = 20.0
    settle_s: float = 5.0
    # The encoder's window for every decode (`SttOptions.encoder_window_s`); None: the decoder's own.
    window_s: float | None = None


@dataclass
class StreamStats:
    """What the passes of the current utterance cost (the bench reads it)."""

    passes: int = 0
    skipped: int = 0  # voided before they started
    decoded_s: float = 0.0  # audio seconds given to the decoder by passes
    committed_words: int = 0  # words made final (before the cut)
    pass_seconds: list[float] = field(default_factory=list)  # audio length of each pass's part
    finish_seconds: float = 0.0  # audio length the last `finish` decoded


class StreamingTranscriber:
    def __init__(self, decoder: PartTranscriber, bias: BiasList | None = None,
                 options: StreamOptions | None = None) -> None:
        self.decoder = decoder
        self.bias = bias  # the learner's names, as hotwords on every decode
        self.options = options or StreamOptions()
        self._lock = threading.Lock()  # the state below
        self._decoding = threading.Lock()  # one decode at a time, so `finish` sees the last commit
        self._generation = 0
        self.reset()

    # -- the audio thread ------------------------------------------------------------------
    def reset(self) -> None:
        """A new utterance: forget the words; passes still queued or decoding are void."""
        with self._lock:
            self._generation += 1
            self._final: list[Heard] = []  # committed and before the cut: never decoded again
            self._hypothesis: list[Heard] = []  # the last pass's words after the cut
            self._agreed = 0  # how many of them are committed
            self._cut = 0  # sample where the audio still to decode starts
            self._cuts: list[tuple[int, int]] = [(0, 0)]  # every cut: (sample, final words before it)
            self._mark = 0  # `due` count at the last pass
            self._busy = False
            self._seq = 0  # passes handed out
            self._void_to = 0  # passes up to this one are skipped (an end was asked for)
            self.stats = StreamStats()

    def due(self, samples: int) -> bool:
        """Is a pass due? `samples`: the utterance's length so far (or its voiced samples:
        any count that grows with the speech, the same one given to `pass_job`)."""
        o = self.options
        with self._lock:
            return (not self._busy and samples >= o.first_pass_s * SAMPLE_RATE
                    and samples - self._mark >= o.step_s * SAMPLE_RATE)

    def pass_job(self, audio: NDArray[np.float32], samples: int | None = None) -> Callable[[], list[str]]:
        """A pass over `audio` (the utterance so far), to run on the STT worker; it returns
        the words it made final. No other pass is due until it has run."""
        with self._lock:
            self._busy = True
            self._mark = len(audio) if samples is None else samples
            self._seq += 1
            generation, seq = self._generation, self._seq
        return lambda: self._pass(audio, generation, seq)

    def finish_job(self, audio: NDArray[np.float32]) -> Callable[[], Transcript]:
        """The end of the turn (maybe a guess: the learner may go on, and passes with it):
        a pass not started by then is skipped; the job returns `finish(audio)`."""
        with self._lock:
            self._void_to = self._seq
        return lambda: self.finish(audio)

    # -- the STT worker --------------------------------------------------------------------
    def run_pass(self, audio: NDArray[np.float32]) -> list[str]:
        """`pass_job(audio)()`: a pass now, on this thread."""
        return self.pass_job(audio)()

    def finish(self, audio: NDArray[np.float32]) -> Transcript:
        """The Transcript of the whole utterance `audio`: the committed words plus a decode
        of the audio after them only. Commits nothing: the turn may go on."""
        samples = np.asarray(audio, dtype=np.float32).reshape(-1)
        with self._decoding:
            with self._lock:
                start, n = self._start(len(samples))
                final = self._final[:n]
                self.stats.finish_seconds = round((len(samples) - start) / SAMPLE_RATE, 3)
            part = self._decode(samples, start, final)
        words = final + drop_repeat(final, heard_words(part))
        return Transcript(text_of(words), part.language, part.seconds, segments_of(words), part.pauses,
                          part.speech_seconds)

    # -- internals ---------------------------------------------------------------------------
    def _pass(self, audio: NDArray[np.float32], generation: int, seq: int) -> list[str]:
        samples = np.asarray(audio, dtype=np.float32).reshape(-1)
        try:
            with self._decoding:
                with self._lock:
                    if generation != self._generation or seq <= self._void_to:
                        if generation == self._generation:
                            self.stats.skipped += 1
                        return []
                    cut = self._cut
                    start, n = self._start(len(samples))
                    final = self._final[:n]
                if len(samples) <= cut:
                    return []
                part = self._decode(samples, start, final)
                with self._lock:
                    if generation != self._generation:
                        return []
                    return self._apply(part, cut, len(samples))
        finally:
            with self._lock:
                if generation == self._generation:
                    self._busy = False

    def _decode(self, samples: NDArray[np.float32], start: int, final: list[Heard]) -> Transcript:
        window = {} if self.options.window_s is None else {"window_s": self.options.window_s}
        return self.decoder.transcribe_part(samples, start, prompt_of(final, self.options.prompt_chars), self.bias,
                                            **window)

    def _apply(self, part: Transcript, cut: int, end: int) -> list[str]:
        """LocalAgreement-2: commit what this pass and the one before agree on; cut at the
        last pause all of whose words before it are committed. Returns the words made final."""
        o = self.options
        offset, end_s = cut / SAMPLE_RATE, end / SAMPLE_RATE
        new = drop_repeat(self._final, [h for h in heard_words(part) if (h.word.start + h.word.end) / 2 >= offset])
        n = agreed(self._hypothesis, new)
        self.stats.passes += 1
        decoded = round(end_s - self._start(end)[0] / SAMPLE_RATE, 3)
        self.stats.decoded_s += decoded
        self.stats.pass_seconds.append(decoded)
        at = pause_cut(new, n, part.pauses, offset, end_s)
        keep = 0 if at is None else sum(1 for h in new if (h.word.start + h.word.end) / 2 < at)
        if at is None and o.word_cut_s and end_s - offset > o.word_cut_s:
            found = word_cut(new, n, end_s)
            if found is not None:
                at, keep = found
        if at is None and end_s - offset > o.max_pending_s:
            # No agreement for too long: the words well behind the audio's end are final.
            keep = sum(1 for h in new if h.word.end <= end_s - o.settle_s)
            at = new[keep - 1].word.end if keep else None
            log.debug("no cut over %.1f s of audio: %d words made final", end_s - offset, keep)
        if at is None:
            self._hypothesis, self._agreed = new, n
            return []
        self._final += new[:keep]
        self._hypothesis, self._agreed = new[keep:], max(0, n - keep)
        self._cut = max(cut, int(at * SAMPLE_RATE))
        self._cuts.append((self._cut, len(self._final)))
        self.stats.committed_words += keep
        return [h.word.word.strip() for h in new[:keep]]

    def _start(self, end: int) -> tuple[int, int]:
        """Where a decode of audio ending at `end` starts: the latest cut at least
        `context_s` before it, and how many final words lie before that cut."""
        context = int(self.options.context_s * SAMPLE_RATE)
        return max((c for c in self._cuts if end - c[0] >= context), default=self._cuts[0])

    # -- what it holds (for the listener and the bench) ---------------------------------------
    @property
    def committed_text(self) -> str:
        """The words committed so far: final ones and those agreed on after the cut."""
        with self._lock:
            return text_of(self._final + self._hypothesis[:self._agreed])

    @property
    def final_text(self) -> str:
        """The words before the cut (the prompt of every later decode)."""
        with self._lock:
            return text_of(self._final)

    @property
    def committed_until(self) -> float:
        """Seconds into the utterance where the audio still to decode starts (the cut)."""
        with self._lock:
            return self._cut / SAMPLE_RATE
