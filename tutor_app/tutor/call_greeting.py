"""The live call's opening: the greeting (tutor/greeting.py) spoken as the call's first
tutor turn, on the turns thread, before the call's warm-up.

It is one committed `TutorTurn` on the call's speaker, so the learner talking (or typing)
over it interrupts it through the one interruption path, and what was heard of it is
known exactly. `speak()` returns at its first audible sample, so Whisper, the judge and
the tutor model warm up while it plays instead of in front of it; `finish()` waits for
the rest, keeps what was heard as the tutor's words and closes the turn for the UI.
"""
from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.core.sentences import SentenceSplitter
from tutor_app.tutor import events as ev
from tutor_app.tutor import greeting as greeting_lines
from tutor_app.tutor.tutor_turn import BARGE_IN

if TYPE_CHECKING:
    from tutor_app.tutor.call_speaker import Speaker
    from tutor_app.tutor.tutor_turn import TurnControl, TutorTurn

log = logging.getLogger(__name__)

FIRST_SOUND_WAIT_S = 10.0  # a stuck synthesiser must not hold the call's warm-up for ever


class CallLoop(Protocol):
    """What the opening uses of tutor/call_loop.CallLoop (which imports this module)."""

    session: Any  # the Conversation
    speaker: Speaker
    control: TurnControl

    def emit(self, event: ev.CallEvent) -> None: ...


def speak(loop: CallLoop, text: str) -> TutorTurn | None:
    """Hand the greeting's sentences to the speaker; return once its first sample went out
    (or it failed, or was cut). None when there is nothing to say."""
    splitter = SentenceSplitter(min_chars=1)  # "Hi Minji!" alone: the first sound comes sooner
    sentences = splitter.feed(text) + splitter.flush()
    if not sentences:
        return None
    turn = loop.control.begin()
    for sentence in sentences:
        loop.speaker.say(turn, sentence)
    control = loop.control
    with control.lock:
        control.lock.wait_for(lambda: turn.first_audio is not None or turn._cancelled
                              or all(s.failed for s in turn.sentences), FIRST_SOUND_WAIT_S)
    return turn


def finish(loop: CallLoop, turn: TutorTurn, started_at: float | None) -> None:
    """Until the greeting was played or cut; then what was heard of it goes into the
    call's history (never a memory, never a learner turn) and TutorTurnDone(greeting=True)
    closes its bubble. `started_at`: perf_counter when the call was started (its
    `first_audio` stamp counts from there)."""
    loop.speaker.wait_done(turn)
    heard = loop.speaker.heard(turn)
    try:
        greeting_lines.record(loop.session, heard)
    except Exception:  # noqa: BLE001 - a failed write must not end the call
        log.exception("the greeting was not recorded")
    timings: dict[str, float] = {}
    if turn.first_audio is not None and started_at is not None:
        timings["first_audio"] = round((turn.first_audio - started_at) * 1000, 2)
        log.info("greeting: first sample %.0f ms after the call started", timings["first_audio"])
    interrupted = turn.interrupted and turn.reason == BARGE_IN
    loop.emit(ev.TutorTurnDone(heard, interrupted, timings_ms=timings, greeting=True))


def compose(loop: CallLoop) -> str:
    """The greeting for this call; "" when it cannot be made (the call goes on silently)."""
    try:
        return greeting_lines.for_call(loop.session)
    except Exception:  # noqa: BLE001
        log.exception("no greeting")
        return ""

