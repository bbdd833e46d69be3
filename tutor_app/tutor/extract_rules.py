"""Call-end extraction without a model: the learner's own plain statements ("my name is
Joon", "I'm a nurse", "I love hiking", "I want to pass IELTS", "please correct me at
the end"). Used when the model's extraction fails (the small offline model rarely
returns valid JSON), so the profile still learns from an offline call. Conservative on
purpose: only first-person statements with a clear pattern, never questions."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tutor_app.core.types import ChatMessage
from tutor_app.memory.profile.fields import LIST_KEYS, SINGLE_KEYS
from tutor_app.memory.retrieval.slots import JOB_TITLES

# The facts both extractors fill (the model's in extract.py, the rules' here): the
# profile schema's fields (memory/profile/fields.py), named here for extract.py.
SINGLE_FIELDS = SINGLE_KEYS
LIST_FIELDS = LIST_KEYS
MAX_ITEMS = 20


@dataclass
class ExtractedFacts:
    name: str = ""
    occupation: str = ""
    interests: list[str] = field(default_factory=list)
    learning_goals: list[str] = field(default_factory=list)
    preferences: list[str] = field(default_factory=list)
    mentioned_facts: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {k: getattr(self, k) for k in (*SINGLE_FIELDS, *LIST_FIELDS)}

    def is_empty(self) -> bool:
        return not any(self.to_dict().values())


_I = re.IGNORECASE
_NOT_NAMES = frozenset("""a an the so very really just not from here there fine good ok okay sorry happy tired
busy back ready sure glad excited nervous learning working trying going doing feeling still also home
korean japanese chinese vietnamese american british canadian australian english french german spanish""".split())
# Names keep their capital letter (Whisper writes them so): only the cue words ignore case.
_NAME = [re.compile(r"\b(?i:my name(?:'s| is)|the name's)\s+([A-Z][\w'-]+)"),
         re.compile(r"\b(?i:call me|calls me|i'm called|i am called|i go by|know me as|known as)\s+([A-Z][\w'-]+)"),
         re.compile(r"^(?i:hi|hello|hey|good (?:morning|afternoon|evening))[\s,!.]+(?i:i'm|i am)\s+([A-Z][\w'-]+)\b"),
         # "I'm Joon, ..." at the start or after a comma; the name ends the clause
         re.compile(r"(?:^|,\s*)(?i:i'm|i am)\s+([A-Z][\w'-]+)(?=\s*(?:[,.!]|$))"),
         re.compile(r"^(?i:this is)\s+([A-Z][\w'-]+)\s+(?i:speaking)\b"),
         re.compile(r"(?:^|,\s*)([A-Z][\w'-]+)\s+(?i:is my name|here)(?=\s*(?:[,.!]|$))")]
_AS = r"(?:an?\s+)?([\w\s-]{2,40}?)(?=[,.!?;]|\s+(?:at|in|for)\b|$)"
_JOB = [re.compile(rf"\b(?:i'm|i am)\s+(?:an?\s+)?((?:\w+\s+){{0,2}}(?:{JOB_TITLES}))s?\b", _I),
        re.compile(rf"\bi(?:\s+|'m\s+|\s+am\s+)(?:work|working)\s+(?:for\s+[\w\s]{{2,30}}?\s+)?as\s+{_AS}", _I),
        re.compile(rf"\bmy\s+(?:job|occupation|profession)\s+is\s+{_AS}", _I)]
_FOND = (r"like|love|enjoy|into|(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of|crazy\s+about|passionate\s+about|keen\s+on|"
         r"fond\s+of|mad\s+about")
_LIKE = re.compile(rf"\bi(?:\s+|'m\s+|\s+am\s+)(?:really\s+|also\s+|just\s+)?(?:{_FOND})\s+"
                   r"([\w\s'-]{2,40}?)(?=[,.!?;]|\s+(?:and|but|because|so|when|with|on|at|in)\b|$)", _I)
_HOBBY = [re.compile(r"\bmy\s+(?:hobby|hobbies|favou?rite\s+\w+)\s+(?:is|are)\s+([\w\s'-]{2,40}?)(?=[,.!?;]|$)", _I),
          re.compile(r"^([\w'-]+(?:\s+[\w'-]+){0,2})\s+(?:is|are)\s+(?:my\s+(?:favou?rite\s+)?(?:hobby|hobbies|pastime|"
                     r"thing|favou?rite\s+(?:thing|activity))|what\s+i\s+(?:do|love|enjoy))\b", _I)]
_GOAL_VERBS = (r"pass|get|improve|speak|study|learn|practise|practice|prepare|work|move|become|sound|understand|"
               r"read|write|talk|chat|communicate|make|use|give|present|travel|live|be\s+able|have")
_GOAL = [re.compile(r"\bmy\s+(?:goal|dream|aim|plan|target)\s+is\s+(?:to\s+)?([\w\s'.-]{3,60}?)(?=[,.!?;]|$)", _I),
         re.compile(r"\bi(?:(?:'d|\s+would)\s+(?:like|love)|(?:'m|\s+am)\s+(?:hoping|planning|trying)|"
                    r"\s+(?:want|need|hope|plan))\s+to\s+"
                    rf"((?:{_GOAL_VERBS})\b[\w\s'.-]{{0,50}}?)(?=[,.!?;]|\s+(?:because|so)\b|$)", _I),
         re.compile(r"\bi(?:'m|\s+am)\s+(?:preparing|studying)\s+for\s+([\w\s'.-]{2,50}?)(?=[,.!?;]|$)", _I)]
_PREF = [re.compile(r"\bplease\s+((?:correct|speak|talk|use|don't|do not|stop)\b[\w\s'\"-]{2,60}?)(?=[,.!?;]|$)", _I),
         re.compile(r"\bi\s+prefer\s+([\w\s'-]{2,50}?)(?=[,.!?;]|$)", _I)]
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")
_TO_GO = re.compile(r"^to\s+(?:go\s+)?(?=\w)", _I)
_STOP_TAIL = re.compile(r"\s+(?:a lot|very much|so much|too|though|actually|now|these days)$", _I)


def extract_by_rules(messages: list[ChatMessage]) -> ExtractedFacts:
    facts = ExtractedFacts()
    for message in messages:
        if message.role != "user":
            continue
        for sentence in _SENTENCE.findall(message.content):
            sentence = sentence.strip()
            if not sentence or sentence.endswith("?"):
                continue  # questions are not statements about oneself
            _scan(sentence, facts)
    for key in ("interests", "learning_goals", "preferences"):
        setattr(facts, key, getattr(facts, key)[:MAX_ITEMS])
    return facts


def _scan(sentence: str, facts: ExtractedFacts) -> None:
    for pattern in _NAME:
        m = pattern.search(sentence)
        if m and m.group(1).lower() not in _NOT_NAMES and not _is_job(m.group(1)):
            facts.name = m.group(1)  # the latest statement wins, as in a merge
            break
    for pattern in _JOB:
        m = pattern.search(sentence)
        if m and not sentence.lower().startswith(("if ", "when ")):
            facts.occupation = _phrase(m.group(1))
            break
    for pattern in (_LIKE, *_HOBBY):
        for m in pattern.finditer(sentence):
            _append(facts.interests, m.group(1))
    for pattern in _GOAL:
        for m in pattern.finditer(sentence):
            _append(facts.learning_goals, m.group(1))
    for pattern in _PREF:
        for m in pattern.finditer(sentence):
            _append(facts.preferences, m.group(1))


def _is_job(word: str) -> bool:
    return re.fullmatch(rf"(?:{JOB_TITLES})s?", word, _I) is not None


def _phrase(text: str) -> str:
    text = _STOP_TAIL.sub("", " ".join(text.split())).strip(" '\"-")
    return _TO_GO.sub("", text)  # "I like to go camping" -> "camping"


def _append(items: list[str], raw: str) -> None:
    text = _phrase(raw)
    if len(text) < 2 or text.lower() in _NOT_NAMES or text.lower() in {i.lower() for i in items}:
        return
    if text.lower().startswith(("it", "that", "this", "you", "them", "him", "her")):
        return  # "I like it": nothing to remember without the context
    items.append(text)
