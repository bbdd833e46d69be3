"""Events a call emits, for the UI bridge and the terminal call. Plain values, no Qt:
the bridge turns each into a queued Qt signal on the GUI thread.

Order within one turn: StateChanged(listening) -> SpeechStarted -> UserUtterance
(final transcript) -> EmotionRead -> StateChanged(thinking) -> TutorSentence... (as each
sentence starts playing) -> TutorTurnDone -> StateChanged(listening). A barge-in gives
TutorTurnDone(interrupted=True, reply=<what was actually played>). A speculative turn the
learner talked on through emits nothing at all (its UserUtterance comes only when it is
committed). A backchannel over the tutor gives Backchannel(text) and no interruption.
A bug on one of the call's threads gives one CallAborted, then StateChanged(ended),
CallEnded and ReportReady, as when the learner ends the call."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Union

LISTENING, THINKING, SPEAKING, PAUSED, ENDED = "listening", "thinking", "speaking", "paused", "ended"


@dataclass(frozen=True)
class StateChanged:
    state: str  # listening | thinking | speaking | paused | ended


@dataclass(frozen=True)
class MicLevel:
    rms: float  # 0..1, about 20 per second


@dataclass(frozen=True)
class SpeechStarted:
    pass


@dataclass(frozen=True)
class UserUtterance:
    text: str  # "" when speech was heard but had no words (no turn follows)
    seconds: float | None = None  # audio length; None for typed turns


@dataclass(frozen=True)
class EmotionRead:
    label: str
    score: float


@dataclass(frozen=True)
class TutorSentence:
    text: str


@dataclass(frozen=True)
class Backchannel:
    text: str  # "mm-hm", "yeah" over the tutor: heard, kept, not an interruption


@dataclass(frozen=True)
class TutorTurnDone:
    reply: str  # what the learner heard / saw (cut at a barge-in)
    interrupted: bool = False
    guardrail: str | None = None
    timings_ms: dict[str, float] = field(default_factory=dict)
    backchannels: tuple[str, ...] = ()  # the learner's "mm-hm"s over this reply
    greeting: bool = False  # the tutor's opening line (call/opening.py): no learner turn before it
    not_heard: bool = False  # the fixed "didn't catch that" line (tutor/heard.py): the learner's turn was not kept


@dataclass(frozen=True)
class Problem:
    kind: str  # no-microphone | no-speaker | device-lost | api-key | offline | llm | tts | other
    message: str  # one line for a banner
    fatal: bool = False


@dataclass(frozen=True)
class CallAborted:
    """A thread of the call failed (a bug, not a device or a model): the call ends by itself."""

    where: str  # audio | turns | speech | playback | greeting: the thread that failed
    error: str  # the exception's type name (the traceback is in the log)

    @property
    def message(self) -> str:
        return (f"The call stopped: something went wrong on our side ({self.where}: {self.error}). "
                "You can start a new call.")


@dataclass(frozen=True)
class CallEnded:
    session_id: str


@dataclass(frozen=True)
class ReportReady:
    session_id: str
    report: dict[str, Any]


CallEvent = Union[StateChanged, MicLevel, SpeechStarted, UserUtterance, EmotionRead, TutorSentence,
                  Backchannel, TutorTurnDone, Problem, CallAborted, CallEnded, ReportReady]
EventSink = Callable[[CallEvent], None]


def ignore(_event: CallEvent) -> None:
    """The default sink."""
