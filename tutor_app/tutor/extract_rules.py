"""Call-end extraction without a model: the learner's own plain statements ("my name is
Joon", "I'm a nurse", "I love hiking", "I want to pass IELTS", "please correct me at
the end"), as Korean learners say them too ("I am office worker", "My hobby is play
guitar": extract_phrases.py). Used when the model's extraction fails or leaves a field
empty (the small offline model rarely returns valid JSON), so the profile still learns
from an offline call. Conservative on
purpose: only first-person statements with a clear pattern; never questions, negations
("I am not a teacher"), hypotheticals ("if I were a doctor") or other people's facts ("my
sister is a nurse", "my mom says I'm lazy")."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from tutor_app.core.types import ChatMessage
from tutor_app.memory.profile.fields import LIST_KEYS, SINGLE_KEYS
from tutor_app.tutor import extract_phrases as P

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
_NAME = [re.compile(r"\b(?i:my (?:english |korean |full )?name(?:'s| is)|the name's)\s+([A-Z][\w'-]+(?: [A-Z][\w'-]+)?)"),
         re.compile(r"\b(?i:call me|calls me|i'm called|i am called|i go by|know me as|known as)\s+([A-Z][\w'-]+)"),
         re.compile(r"^(?i:hi|hello|hey|good (?:morning|afternoon|evening))[\s,!.]+(?i:i'm|i am)\s+([A-Z][\w'-]+)\b"),
         # "I'm Joon, ..." at the start or after a comma; the name ends the clause
         re.compile(r"(?:^|,\s*)(?i:i'm|i am)\s+([A-Z][\w'-]+(?: [A-Z][\w'-]+)?)(?=\s*(?:[,.!]|$))"),
         re.compile(r"^(?i:this is)\s+([A-Z][\w'-]+)\s+(?i:speaking)\b"),
         re.compile(r"(?:^|,\s*)([A-Z][\w'-]+)\s+(?i:is my name|here)(?=\s*(?:[,.!]|$))")]
_SENTENCE = re.compile(r"[^.!?]+[.!?]?")
# Clauses of a sentence: "I'm a nurse, but I don't like my job" is two statements.
_CLAUSE = re.compile(r"\s*(?:[;:]|,?\s+(?:but|and|because|so|although|though|while)\s+(?=(?:i|i'm|i'd|im|my)\b)"
                     r"|,\s+(?=(?:i|i'm|i'd|im|my)\b))", _I)
# "In my free time, I ..." is one statement: its comma must not split it.
_LEISURE = re.compile(r"^(in\s+my\s+(?:free|spare)\s+time|on\s+(?:the\s+)?weekends?|after\s+(?:work|school)),\s+", _I)
_QUESTION = re.compile(r"^(?:do|does|did|can|could|would|will|should|shall|is|are|am|was|were|what|where|why|"
                       r"how|who|which|whose|have\s+you|has|may|isn't|aren't|don't|doesn't)\b", _I)
_NEGATED = re.compile(r"\b(?:not|never|no\s+longer|hardly|neither|nor)\b|n't\b|\bcannot\b", _I)
# Not a fact of the learner's life today: a condition, a wish, a guess, a past "when".
_CONDITIONAL = re.compile(r"\b(?:if|unless|wish|wished|imagine|pretend|suppose|supposing)\b", _I)
_HYPOTHETICAL = re.compile(r"^(?:when|maybe|perhaps)\b|\bmight\b|\b(?:would|could|'d)\s+(?!like\b|love\b|prefer\b)"
                           r"(?:be|have|live|work|become)\b", _I)
# Someone else's words about the learner: "my mom says I'm lazy".
_REPORTED = re.compile(r"\b(?:says?|said|thinks?|thought|told\s+me|believes?|calls?\s+me\s+a)\s+(?:that\s+)?i\b", _I)


def extract_by_rules(messages: list[ChatMessage]) -> ExtractedFacts:
    facts = ExtractedFacts()
    title = place = ""
    for message in messages:
        if message.role != "user":
            continue
        for sentence in _SENTENCE.findall(message.content):
            sentence = sentence.strip()
            if not sentence or sentence.endswith("?"):
                continue  # questions are not statements about oneself
            # "If I were a doctor, I'd ...": every clause hangs on the condition.
            conditional = _CONDITIONAL.search(sentence) is not None
            for clause in _CLAUSE.split(_LEISURE.sub(r"\1 ", sentence)):
                clause = clause.strip(" ,")
                if not clause or _QUESTION.match(clause):
                    continue
                for item in P.preferences(clause):  # requests: "please don't ..." is one too
                    _append(facts.preferences, item)
                if conditional or _NEGATED.search(clause) or _HYPOTHETICAL.search(clause) or _REPORTED.search(clause):
                    continue
                title = P.occupation(clause) or title  # the latest statement wins, as in a merge
                place = P.workplace(clause) or place
                _scan(clause, facts)
    # The job: its title, else where they work; with both, the workplace is kept as a fact.
    facts.occupation = title or place
    if title and place:
        _append(facts.mentioned_facts, place)
    for key in LIST_FIELDS:
        setattr(facts, key, getattr(facts, key)[:MAX_ITEMS])
    return facts


def _scan(clause: str, facts: ExtractedFacts) -> None:
    for pattern in _NAME:
        m = pattern.search(clause)
        if m and m.group(1).split()[0].lower() not in _NOT_NAMES and not _is_job(m.group(1)):
            facts.name = m.group(1)
            break
    for item in P.interests(clause):
        _append(facts.interests, item)
    for item in P.goals(clause):
        _append(facts.learning_goals, item)
    for item in P.facts(clause):
        _append(facts.mentioned_facts, item)


def _is_job(word: str) -> bool:
    return re.fullmatch(rf"(?:{P.TITLES})s?", word, _I) is not None


def _append(items: list[str], text: str) -> None:
    if len(text) < 2 or text.lower() in _NOT_NAMES or text.lower() in {i.lower() for i in items}:
        return
    items.append(text)
