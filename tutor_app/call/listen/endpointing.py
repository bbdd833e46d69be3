"""Endpointing: is the learner's turn over? A strategy of the Listener
(call/listen/listener.py): it decides, the Listener acts (STT, the judge, the tutor's turn).

One silent frame of an utterance at a time, `step` says what to do next:
- TRANSCRIBE: `early_stt_ms` into the silence, the words so far are asked for (from the
  transcript source: `TranscriptSource`) - used if the turn ends there, dropped if the
  learner goes on. Never while a stale guess is still decoding. A voiced frame that is
  fading (`fading`) asks for them too: the voice's last frame often is one.
- JUDGE: at `judge_ms` the end-of-turn judge is asked about that span (the same span
  whenever it is asked: asking before `check_ms` only gets the verdict sooner).
- VERDICT: its verdict is in and `check_ms` of silence have passed; `verdict` makes it a decision: complete -> SPECULATE the
  tutor's turn at once (held and RELEASEd at `earliest_ms` of silence if that is still to
  come: a comma pause is no turn's end); `likely` (a whole sentence the audio doubts) -> SPECULATE a held
  turn at once (it streams and synthesises, but plays only after) and RELEASE it at the
  sentence wait - or, without `hold_likely`, SPECULATE only then; not complete -> keep
  listening (the segmenter's own window, the thinking time, ends the turn).
- COMMIT: a speculation heard `commit_ms` of silence (unless its first sample played
  before: the Listener sees `turn.committed`); voice before that retracts it.
- OVER_TUTOR: speech over the tutor not yet decided - its words are in after
  `over_tutor_ms` of quiet, and the interruption strategy (interruption.py) decides what it was, not the judge.
No judge (its model could not load): no decision here; the VAD-only silence ends the turn.

The requests' handles (Futures) ride in `Check` and `Speculation` for the Listener; this
module never calls them. What the Listener knows of them each step comes in as `Ready`.
"""
from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.call.options import EndpointingOptions, SpeculationOptions, frames

if TYPE_CHECKING:
    from collections.abc import Callable
    from concurrent.futures import Future

    import numpy as np

    from tutor_app.core.types import Transcript
    from tutor_app.speech.bias import BiasList


class TranscriptSource(Protocol):
    """Where the Listener gets the words of frames [start, end) of the utterance: each
    request decoded after the fact (`Decoded`), or answered from what a source that
    recognises while the learner speaks already heard (call/transcripts.py `Streamed`):
    it is told where each utterance starts and when a voiced frame is in."""

    def started(self, start: int, streamable: bool = True) -> None: ...
    def heard(self, start: int, end: int, words: Callable[[], np.ndarray]) -> None: ...
    def request(self, start: int, end: int, audio: np.ndarray,
                expect: BiasList | None = None) -> Future[Transcript]: ...
    def drop(self, future: Future[Transcript]) -> None: ...


class TranscribePort(Protocol):
    def transcribe_later(self, audio: Any, expect: Any = None) -> Any: ...
    def drop(self, future: Any) -> None: ...
    def hear_ahead(self, audio: Any) -> None: ...


# Voiced frames between two reads ahead of the VAD over the utterance so far (`Decoded.heard`).
AHEAD_FRAMES = 16


class Decoded:
    """Every request decoded in full by the call's STT (`port.transcribe_later`, one at a time).
    While the learner speaks, only the decode's VAD pass is read ahead, every `AHEAD_FRAMES`
    voiced frames (`port.hear_ahead`): the VAD reads a clip that starts with the last one
    from where that stopped (speech/vad.py), so the end's decode reads only the last frames."""

    def __init__(self, port: TranscribePort) -> None:
        self._port = port
        self._start: int | None = None
        self._ahead = 0  # the end of the utterance's last read ahead

    def started(self, start: int, streamable: bool = True) -> None:
        """Speech started at frame `start` (over the tutor: its words are read otherwise)."""
        self._start, self._ahead = (start, start) if streamable else (None, 0)

    def heard(self, start: int, end: int, words: Callable[[], np.ndarray]) -> None:
        """Frames [start, end) of the utterance are in, the last one voiced."""
        if start == self._start and end - self._ahead >= AHEAD_FRAMES:
            self._ahead = end
            self._port.hear_ahead(words())

    def request(self, start: int, end: int, audio: np.ndarray,
                expect: BiasList | None = None) -> Future[Transcript]:
        future: Future[Transcript] = self._port.transcribe_later(audio, expect)
        return future

    def drop(self, future: Future[Transcript]) -> None:
        """Its words are not wanted any more: it never starts, or stops at its next stage."""
        self._port.drop(future)


class Do(Enum):
    TRANSCRIBE = "transcribe"
    JUDGE = "judge"
    VERDICT = "verdict"
    OVER_TUTOR = "over the tutor"
    SPECULATE = "speculate"
    RELEASE = "release"
    COMMIT = "commit"


@dataclass
class Check:
    """The end-of-turn question asked about one span [start, end) of the utterance."""

    start: int
    end: int
    transcript: Any  # the words of the span (a Future), once asked
    verdict: Any = None  # the judge's verdict (a Future), once asked
    judged: bool = False  # the judge was asked (or there is none)
    decided: bool = False
    likely: bool = False  # judged "likely" complete: ends after the sentence wait
    fading: bool = False  # asked at a fading voiced frame (`Endpointing.fading`), not in the silence


@dataclass
class Speculation:
    """The tutor's turn started on the span [start, end) before the turn was certain."""

    start: int
    end: int
    commit_at: int  # silence (frames) at which it is committed
    turn: Any  # its TutorTurn; None when the span had no words (nothing to answer)
    held: bool = False  # not to play before `release_at` (RELEASE)
    release_at: int = 0  # silence (frames) at which a held turn may play


@dataclass(frozen=True)
class Ready:
    """What the Listener knows of its requests on this frame."""

    stt_busy: bool = False  # a stale early transcript is still decoding
    transcript: bool = False  # the check's transcript is in
    verdict: bool = False  # the check's verdict is in
    over_tutor: bool = False  # the utterance is speech over the tutor not yet decided


class Endpointing:
    def __init__(self, options: EndpointingOptions, speculation: SpeculationOptions) -> None:
        self._speculate = speculation.enabled
        self._hold = speculation.hold_likely
        self._early = frames(options.early_stt_ms or options.check_ms)
        self._fading = options.fading_stt and options.early_stt_ms > 0
        self._check_at = frames(options.check_ms)
        self._over_tutor_at = frames(options.over_tutor_ms)
        self._judge_at = min(self._check_at, frames(options.judge_ms or options.check_ms))
        self._sentence_at = frames(options.sentence_wait_ms)
        self._commit = frames(speculation.commit_ms)
        self._commit_after_check = frames(speculation.commit_ms - options.check_ms)
        self._earliest = frames(speculation.earliest_ms)
        self.check: Check | None = None
        self.speculation: Speculation | None = None
        self.how = ""  # why the last SPECULATE: "judge" (complete) or "sentence" (likely)

    def voiced(self) -> None:
        """The learner is still talking: an earlier guess is stale."""
        self.check = None

    def fading(self, ready: Ready) -> bool:
        """A voiced frame of the utterance is fading (Segmenting's `Step.fading`): ask for
        the words up to it now (TRANSCRIBE), as the first silent frame would if it is the
        voice's last? Not while a stale guess decodes, nor over the tutor."""
        return self._fading and self.check is None and not ready.stt_busy and not ready.over_tutor

    def step(self, silence: int, ready: Ready) -> Do | None:
        """`silence` frames into a silence of the utterance: the next thing to do, or None
        (the Listener does it and asks again)."""
        check = self.check
        if check is None:
            return Do.TRANSCRIBE if silence >= self._early and not ready.stt_busy else None
        if check.decided:
            spec = self.speculation
            if spec is not None and spec.held and silence >= spec.release_at:
                spec.held = check.likely = False
                return Do.RELEASE
            if check.likely and self.speculation is None and silence >= self._sentence_at:
                check.likely = False
                self.how = "sentence"
                return Do.SPECULATE
            if self.speculation is not None and silence >= self.speculation.commit_at:
                return Do.COMMIT
            return None
        if not check.judged and silence >= self._judge_at:
            check.judged = True
            return Do.JUDGE
        decides_at = self._over_tutor_at if ready.over_tutor else self._check_at
        if silence >= decides_at and (ready.verdict or (ready.over_tutor and ready.transcript)):
            check.decided = True
            return Do.OVER_TUTOR if ready.over_tutor else Do.VERDICT
        return None

    def asked(self, start: int, end: int, transcript: Any, fading: bool = False) -> Check:
        """TRANSCRIBE was done (at a fading frame: `fading`): the words of [start, end) are
        on their way."""
        self.check = Check(start, end, transcript, fading=fading)
        return self.check

    def no_judge(self, over_tutor: bool) -> None:
        """JUDGE found no judge: the VAD-only rule ends the turn (speech over the tutor
        still waits for its words)."""
        if self.check is not None and not over_tutor:
            self.check.decided = True

    def verdict(self, verdict: Any) -> Do | None:
        """VERDICT: the judge's Verdict (None when it failed) -> SPECULATE or keep listening."""
        check = self.check
        if check is None or verdict is None or not self._speculate:
            return None  # keep listening: the segmenter's silence window ends it otherwise
        if not getattr(verdict, "complete", True):
            check.likely = bool(getattr(verdict, "likely", False))  # `step` ends it at the sentence wait
            if check.likely and self._hold:
                self.how = "sentence"
                return Do.SPECULATE  # held: `step` releases it at the sentence wait
            return None
        self.how = "judge"
        return Do.SPECULATE

    def holds(self, silence: int) -> bool:
        """The turn to speculate on `silence` frames into the silence is to be held: a
        `likely` one (until the sentence wait), or any before `earliest_ms`."""
        return self.check is not None and (self.check.likely or silence < self._earliest)

    def speculated(self, turn: Any, silence: int) -> None:
        """SPECULATE was done on the check's span: committed `commit_ms - check_ms` of
        silence later (at least `commit_ms` into it), unless its first sample plays first;
        a `likely` one counts from the sentence wait, as if speculated then."""
        assert self.check is not None  # SPECULATE is only asked for with a check
        likely = self.check.likely
        release_at = self._sentence_at if likely else self._earliest
        commit_at = max(self._commit, (self._sentence_at if likely else silence) + self._commit_after_check)
        self.speculation = Speculation(self.check.start, self.check.end, commit_at, turn,
                                       self.holds(silence), release_at)

    def take_speculation(self) -> Speculation | None:
        """The learner went on: the speculation is retracted (if it still can be)."""
        spec = self.speculation
        self.speculation = None
        return spec

    def close(self) -> tuple[Speculation | None, Check | None]:
        """The segmenter's window closed the utterance: what was asked and started for it."""
        asked = (self.speculation, self.check)
        self.reset()
        return asked

    def reset(self) -> None:
        self.speculation = self.check = None
