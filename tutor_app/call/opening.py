"""The live call's opening: the greeting (tutor/greeting.py) spoken as the call's first
tutor turn, on the turns thread, before the call's warm-up.

It is one committed `TutorTurn` on the call's speaker, so the learner talking (or typing)
over it interrupts it through the one interruption path, and what was heard of it is
known exactly. `speak()` returns at its first audible sample, so Whisper, the judge and
the tutor model warm up while it plays instead of in front of it; `finish()` waits for
the rest, keeps what was heard as the tutor's words and closes the turn for the UI.
With a cloud model and something recent remembered, the rest after "Hi Minji!" may be
the model's follow-up question (tutor/greeting_followup.py), asked on its own thread
while the first sentence plays.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.call import events as ev
from tutor_app.call.tutor_turn import BARGE_IN
from tutor_app.core.sentences import SentenceSplitter
from tutor_app.tutor import greeting as greeting_lines

if TYPE_CHECKING:
    from tutor_app.call.speaker import Speaker
    from tutor_app.call.tutor_turn import TurnControl, TutorTurn
    from tutor_app.tutor.greeting import Greeting

log = logging.getLogger(__name__)

FIRST_SOUND_WAIT_S = 10.0  # a stuck synthesiser must not hold the call's warm-up for ever


class CallLoop(Protocol):
    """What the opening uses of call/loop.CallLoop (which imports this module)."""

    @property
    def session(self) -> Any: ...  # the Conversation
    speaker: Speaker
    control: TurnControl

    def emit(self, event: ev.CallEvent) -> None: ...
    def failed(self, where: str, exc: BaseException) -> None: ...


@dataclass
class Opening:
    turn: TutorTurn
    rest: threading.Thread | None = None  # says the rest of the greeting (after the follow-up question)
    question: str = ""  # the model's follow-up question, when it was said


def speak(loop: CallLoop, greeting: Greeting | None) -> Opening | None:
    """Hand the greeting to the speaker; return once its first sample went out (or it
    failed, or was cut). None when there is nothing to say."""
    if greeting is None or not greeting.text:
        return None
    turn = loop.control.begin()
    opening = Opening(turn)
    ask = bool(greeting.notes and greeting.rest) and _on_the_cloud(loop)
    _say(loop, turn, greeting.hello if ask else greeting.text)
    if ask:
        opening.rest = threading.Thread(target=_rest_of_greeting, args=(loop, opening, greeting),
                                        name="greeting-rest", daemon=True)
        opening.rest.start()
    control = loop.control
    with control.lock:
        control.lock.wait_for(lambda: turn.first_audio is not None or turn._cancelled
                              or all(s.failed for s in turn.sentences), FIRST_SOUND_WAIT_S)
    return opening


def finish(loop: CallLoop, opening: Opening, started_at: float | None) -> None:
    """Until the greeting was played or cut; then what was heard of it goes into the
    call's history (never a memory, never a learner turn) and TutorTurnDone(greeting=True)
    closes its bubble. `started_at`: perf_counter when the call was started (its
    `first_audio` stamp counts from there)."""
    from tutor_app.tutor.greeting_followup import BUDGET_S

    turn = opening.turn
    if opening.rest is not None:
        opening.rest.join(BUDGET_S + 5.0)  # its sentences are in the turn before we wait on them
    loop.speaker.wait_done(turn)
    heard = loop.speaker.heard(turn)
    try:
        greeting_lines.record(loop.session, heard)
    except Exception:  # noqa: BLE001 - a failed write must not end the call
        log.exception("the greeting was not recorded")
    timings: dict[str, float] = {}
    if turn.first_audio is not None and started_at is not None:
        timings["first_audio"] = round((turn.first_audio - started_at) * 1000, 2)
        log.info("greeting: first sample %.0f ms after the call started; follow-up question: %s",
                 timings["first_audio"], "yes" if opening.question else "no")
    interrupted = turn.interrupted and turn.reason == BARGE_IN
    loop.emit(ev.TutorTurnDone(heard, interrupted, timings_ms=timings, greeting=True))


def compose(loop: CallLoop) -> Greeting | None:
    """The greeting for this call; None when it cannot be made (the call goes on silently)."""
    try:
        return greeting_lines.for_call(loop.session)
    except Exception:  # noqa: BLE001
        log.exception("no greeting")
        return None


def _say(loop: CallLoop, turn: TutorTurn, text: str) -> None:
    splitter = SentenceSplitter(min_chars=1)  # "Hi Minji!" alone: the first sound comes sooner
    for sentence in splitter.feed(text) + splitter.flush():
        loop.speaker.say(turn, sentence)


def _on_the_cloud(loop: CallLoop) -> bool:
    """Is the tutor's model the cloud one? (Deciding loads nothing.)"""
    from tutor_app.llm.factory import choose_backend

    try:
        return choose_backend(loop.session.engine.settings) == "anthropic"
    except Exception:  # noqa: BLE001 - unknown: the fixed greeting
        return False


def _rest_of_greeting(loop: CallLoop, opening: Opening, greeting: Greeting) -> None:
    """The `greeting-rest` thread, with the catch-all every thread of the call has."""
    try:
        _follow_up(loop, opening, greeting)
    except Exception as exc:  # noqa: BLE001 - a bug on this thread ends the call with a message
        loop.failed("greeting", exc)


def _follow_up(loop: CallLoop, opening: Opening, greeting: Greeting) -> None:
    """The model's question, or the fixed rest when none comes in time (the budget counts
    from here: a model still loading uses it up)."""
    from tutor_app.tutor.greeting_followup import BUDGET_S, ask, cloud_model

    t0 = time.perf_counter()
    question = ""
    try:
        engine = loop.session.engine
        model = cloud_model(engine.services.chat_model())
        budget = BUDGET_S - (time.perf_counter() - t0)
        if model is not None and budget > 0.2:
            question = ask(model, greeting.notes, engine.settings.tutor.level, budget)
    except Exception:  # noqa: BLE001 - no question: the fixed rest
        log.info("no follow-up question", exc_info=True)
    finally:
        opening.question = question
        log.info("greeting follow-up: %s after %.0f ms", "a question" if question else "none",
                 (time.perf_counter() - t0) * 1000)
        _say(loop, opening.turn, question or greeting.rest)
