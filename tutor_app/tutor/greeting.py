"""The tutor's opening line of a spoken call: it speaks first, at once.

The greeting is composed here from the learner profile (the `name` field) and the call's
level, without a model call: it is ready the moment the call starts (no wait for the
tutor model to load or answer, offline as fast as with a cloud model), and it can say
nothing the learner did not tell us (a model asked to "greet with something remembered"
guesses and invents). The tutor model takes over at the learner's first turn, with
everything remembered in its prompt.

It is a tutor turn like any other for what the learner hears (speaker path, barge-in),
but not a learner turn: `record()` keeps only what was heard as the tutor's words in the
call's history (the stored transcript when memory is on, the call's own otherwise),
never as a memory and never as a turn of the report.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tutor_app.core.types import ChatMessage

if TYPE_CHECKING:
    from tutor_app.settings import TutorSettings
    from tutor_app.tutor.engine import Conversation

# Per level: a first call, a learner who has called before, each with and without a name.
# Beginners get the shortest, most common words.
LINES = {
    "beginner": {"named": "Hi {name}! Nice to hear you. What do you want to talk about today?",
                 "named_again": "Hi {name}! Nice to hear you again. What do you want to talk about today?",
                 "new": "Hi! I'm your English tutor. What do you want to talk about today?",
                 "again": "Hi! Nice to hear you again. What do you want to talk about today?"},
    "intermediate": {"named": "Hi {name}! Good to hear you. What would you like to talk about today?",
                     "named_again": "Hi {name}! Good to hear from you again. What would you like to talk about today?",
                     "new": "Hi! I'm your English tutor. What would you like to talk about today?",
                     "again": "Hi! Good to hear from you again. What would you like to talk about today?"},
    "advanced": {"named": "Hi {name}, great to hear from you! What's on your mind today?",
                 "named_again": "Hi {name}, great to hear from you again! What's on your mind today?",
                 "new": "Hi! I'm your English tutor. What's on your mind today?",
                 "again": "Hi! Great to hear from you again. What's on your mind today?"},
}
_NAME = re.compile(r"^[^\W\d_][\w'\-]*$")  # one word of letters (Minji, O'Neil, Jean-Luc)


def learner_name(profile: Mapping[str, Any]) -> str:
    """The first word of the profile's `name`, or "" when it is unknown or does not look
    like a name (a misheard line must not be read out as one)."""
    value = profile.get("name")
    words = str(value).split() if value else []
    first = words[0].strip(".,!?") if words else ""
    return first if first and len(first) <= 30 and _NAME.match(first) else ""


def compose(profile: Mapping[str, Any], tutor: TutorSettings, returning: bool = False) -> str:
    """`returning`: the learner has had a call before (so "again", and no introduction)."""
    lines = LINES.get(tutor.level, LINES["intermediate"])
    name = learner_name(profile)
    if name:
        return lines["named_again" if returning else "named"].format(name=name)
    return lines["again" if returning else "new"]


@dataclass(frozen=True)
class Greeting:
    hello: str  # the first sentence ("Hi Minji!"), said at once
    rest: str  # the fixed rest, unless a follow-up question replaces it (greeting_followup.py)
    notes: list[str] = field(default_factory=list)  # recent things the learner told us (for that question)

    @property
    def text(self) -> str:
        return f"{self.hello} {self.rest}".strip()


def split(line: str, notes: list[str] | None = None) -> Greeting:
    from tutor_app.core.sentences import SentenceSplitter

    splitter = SentenceSplitter(min_chars=1)
    sentences = splitter.feed(line) + splitter.flush()
    return Greeting(sentences[0] if sentences else "", " ".join(sentences[1:]), list(notes or []))


def for_call(session: Conversation) -> Greeting:
    """The opening of this call. The memory is read even off the record (it is what the
    tutor already knows; nothing is written)."""
    from tutor_app.tutor.greeting_followup import recent_notes

    engine = session.engine
    memory = engine.services.memory
    try:
        profile = memory.profile_view()
        returning = any(call.session_id != session.session_id for call in memory.calls())
        notes = recent_notes(memory.list(include_superseded=False), session.session_id) if returning else []
    except Exception:  # noqa: BLE001 - an unreadable memory must not keep the tutor silent
        profile, returning, notes = {}, False, []
    return split(compose(profile, engine.settings.tutor, returning), notes)


def record(session: Conversation, heard: str) -> None:
    """The greeting as the tutor's words of this call (what was heard of it): the call's
    own transcript, and the stored one when memory is on. Never a memory, never a turn."""
    heard = heard.strip()
    if not heard:
        return
    # Conversation keeps an off-the-record call's history only in `_transcript`; the
    # engine has no public hook for a line the tutor says on its own.
    session._transcript.append(ChatMessage("assistant", heard))
    session.engine.memory_flow.on_tutor_reply(session.session_id, heard, off_record=not session.memory_on)
    session.read_ahead()  # the first turn's prompt, while the learner answers the greeting
