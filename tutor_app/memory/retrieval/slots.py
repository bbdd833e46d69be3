"""Fact/slot recall (seed 001 case 2): questions about a known kind of fact ("what's my
name?", "what do I like?", "when is my exam?") map to categories and to text cues.

Each memory gets a bitmask of the cues its text carries when it enters the index, so a
slot query is a numpy mask, not a regex over every memory.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast


@dataclass(frozen=True)
class Slot:
    name: str
    bit: int
    query: re.Pattern[str]
    categories: frozenset[str]
    text: re.Pattern[str]
    specific: bool = False  # the noun asked about (group 1) must itself be in the memory
    defines: bool = True  # any memory of this kind answers ("my name"); False: it must also be on topic


def _re(p: str) -> re.Pattern[str]:
    return re.compile(p, re.IGNORECASE)


# "I'm a nurse", "I work as a barista": job titles mark an occupation memory even when
# the sentence says nothing like "my job".
JOB_TITLES = (r"nurse|doctor|teacher|tutor|professor|lecturer|student|developer|programmer|engineer|designer|accountant|"
         r"lawyer|chef|cook|baker|barista|waiter|waitress|cashier|manager|clerk|pharmacist|dentist|architect|"
         r"scientist|researcher|analyst|consultant|marketer|salesperson|driver|pilot|flight\s+attendant|"
         r"(?:cabin\s+)?crew|civil\s+servant|officer|soldier|journalist|writer|translator|interpreter|"
         r"photographer|artist|musician|hairdresser|mechanic|electrician|plumber|farmer|housewife|homemaker|"
         r"freelancer|intern|retired|retiree|unemployed|secretary|receptionist|librarian|therapist|"
         r"physiotherapist|veterinarian|vet|caregiver|banker|trader|entrepreneur|ceo|founder")
_DAYS = r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|next week|next month|weekend"
_MONTHS = r"january|february|march|april|may|june|july|august|september|october|november|december"

SLOTS: tuple[Slot, ...] = (
    Slot("name", 1, _re(r"\bwhat(?:'s| is| was)\s+my\s+name\b|\bmy\s+name\b|\bwho\s+am\s+i\b|\bwhat\s+(?:do|should)\s+you\s+call\s+me\b|내\s*이름|제\s*이름"),
         frozenset({"name", "identity"}),
         _re(r"\bmy\s+name\b|\bname'?s\b|\bcall\s+me\b|\bi'?m\s+called\b|\bi\s+am\s+called\b|이름|^name:")),
    Slot("occupation", 2, _re(r"\bmy\s+(?:job|work|occupation|profession|career|company)\b|\bwhat\s+do\s+i\s+do\s+(?:for\s+(?:a\s+)?(?:living|work)|at\s+work|for\s+my\s+job)\b|\bwhere\s+do\s+i\s+work\b|\bwhat(?:'s| is)\s+my\s+job\b|\bwhat\s+(?:kind\s+of\s+)?(?:work|job)\s+do\s+i\b|\bwhat\s+do\s+i\s+do\s*\??\s*$"),
         frozenset({"occupation", "project"}),
         _re(r"\bi\s+work\b|\bworking\s+(?:as|at|for|in)\b|\bi'?m\s+an?\s+(?:\w+\s+){0,2}\w+\s+(?:at|in|for)\s+(?:an?|the|my|our)\b|\bmy\s+(?:job|work|boss|company|office|team)\b|\bjob\b|\bcareer\b|^occupation:"
             rf"|\bi'?m\s+(?:an?\s+)?(?:\w+\s+){{0,2}}(?:{JOB_TITLES})s?\b|\bi\s+am\s+(?:an?\s+)?(?:\w+\s+){{0,2}}(?:{JOB_TITLES})s?\b"
             r"|\bi\s+(?:teach|tutor)\b|\bwork(?:s|ing)?\s+as\b")),
    Slot("preference", 4, _re(r"\bwhat\s+(?:\w+\s+){0,2}(?:do|did)\s+i\s+(?:like|love|prefer|enjoy|hate|dislike)\b|\bmy\s+fav(?:ou)?rite\b|\bdo\s+i\s+(?:like|love|prefer|enjoy|hate)\b|\bwhat\s+i\s+(?:like|love|prefer)\b|\bpreferences?\b|좋아"),
         frozenset({"preference", "interest"}),
         _re(r"\b(?:like|likes|love|loves|prefer|prefers|enjoy|enjoys|favou?rite|hate|hates|can'?t\s+stand|into|fan\s+of|dislike)\b|좋아|^(?:preference|interest):"), defines=False),
    Slot("location", 8, _re(r"\bwhere\s+(?:do|did)\s+i\s+(?:live|grow\s+up|come\s+from|stay|move)\b|\bwhere\s+am\s+i\s+from\b|\bmy\s+(?:home\s*town|city|country|neighbou?rhood|address)\b"),
         frozenset({"identity", "fact"}),
         _re(r"\blive\s+in\b|\blived\s+in\b|\bliving\s+in\b|\bi'?m\s+from\b|\bgrew\s+up\b|\bmoved\s+to\b|\bhome\s*town\b|\bborn\s+in\b|살아")),
    Slot("schedule", 16, _re(r"\bwhen\s+(?:is|was|are|were|do|did|will)\s+(?:my|i)\b|\bwhat\s+(?:day|date|time)\b|\bmy\s+(?:schedule|appointment|plans?)\b"),
         frozenset({"schedule"}),
         _re(rf"\b(?:{_DAYS}|{_MONTHS})\b|\b\d{{1,2}}(?:st|nd|rd|th)\b|\b\d{{1,2}}\s*(?:am|pm)\b|\b\d{{1,2}}:\d\d\b|\bnext\s+\w+\b|\bin\s+\d+\s+(?:days|weeks)\b"), defines=False),
    Slot("goal", 32, _re(r"\bmy\s+(?:goal|goals|dream|plan|target)\b|\bwhy\s+am\s+i\s+(?:learning|studying)\b|\bwhat\s+am\s+i\s+(?:learning|studying|preparing)\b"),
         frozenset({"goal"}),
         _re(r"\bgoal\b|\bwant\s+to\b|\bhope\s+to\b|\bplan\s+to\b|\bpreparing\s+for\b|\bdream\b|\bi'?m\s+studying\b|^learning goal:")),
    Slot("people", 64, _re(r"\bmy\s+(sister|brother|mom|mother|dad|father|parents?|wife|husband|partner|girlfriend|boyfriend|friend|boss|son|daughter|kids?|children|grandma|grandmother|grandpa|grandfather|cousin|colleague|roommate|teacher)\b"),
         frozenset(),
         _re(r"\b(?:sister|brother|mom|mother|dad|father|parents?|wife|husband|partner|girlfriend|boyfriend|friend|boss|son|daughter|kids?|children|grandma|grandmother|grandpa|grandfather|cousin|colleague|roommate|teacher)\b"), specific=True, defines=False),
    Slot("pet", 128, _re(r"\bmy\s+(dog|cat|pet|puppy|kitten|hamster|bird|fish|rabbit|parrot)\b"),
         frozenset(),
         _re(r"\b(?:dog|cat|pet|puppy|kitten|hamster|bird|fish|rabbit|parrot)s?\b"), specific=True, defines=False),
)

_REMEMBER_ASK = _re(r"^\s*(?:hey[\s,]+)?(?:do|did|can|could)\s+you\s+(?:still\s+)?(?:remember|recall)\s*(?:that|when|what|the|my|about)?\s*|기억\s*나(?:니|요)?\??")


def query_slots_nouns(query: str) -> list[tuple[Slot, str]]:
    """Slots of the query with, for specific slots, the noun asked about."""
    out = []
    for s in SLOTS:
        m = s.query.search(query)
        if m:
            out.append((s, m.group(1) if s.specific and m.groups() else ""))
    return out


_CATEGORY_BITS: dict[str, int] = {}
for _s in SLOTS:
    for _c in _s.categories:
        _CATEGORY_BITS[_c] = _CATEGORY_BITS.get(_c, 0) | _s.bit
# One pass per memory instead of one search per slot. finditer does not report cue
# words that overlap an earlier match; slots only boost, so a rare miss costs little.
_ANY_TEXT = re.compile("|".join(f"(?P<s{s.bit}>{s.text.pattern})" for s in SLOTS), re.IGNORECASE)


def row_tags(text: str, category: str) -> int:
    tags = _CATEGORY_BITS.get(category, 0)
    for m in _ANY_TEXT.finditer(text):
        tags |= int(cast(str, m.lastgroup)[1:])  # every alternative is a named group
    return tags


def remember_ask(query: str) -> str:
    """The rest of a "do you remember ...?" question, or '' when it is not one."""
    m = _REMEMBER_ASK.search(query)
    if not m:
        return ""
    rest = (query[: m.start()] + " " + query[m.end():]).strip(" ?")
    return rest or query
