"""The learner's statements about themselves as Korean learners of English say them, for the
rule floor (extract_rules.py): dropped articles and "to" ("I am office worker", "I want
go to Canada"), "My hobby is play guitar", "I like to watching movies", "I teach math" ->
math teacher, "I work in IT company", "I'd like to get better at ...", "I want to be able
to ...", "I live in Seoul". Each function takes one clause the caller has already judged
to be a plain first-person statement (no question, negation or hypothetical) and returns
normalised values; it never adds a fact the clause does not state.
"""
from __future__ import annotations

import re

from tutor_app.memory.retrieval.slots import JOB_TITLES

_I = re.IGNORECASE
# Job titles beyond the recall slots' list: what Korean learners call their work.
MORE_TITLES = (r"office\s+worker|company\s+employee|(?:\w+\s+)?worker|employee|salary\s*man|businessman|"
               r"businesswoman|salesman|saleswoman|sales\s+rep(?:resentative)?|public\s+official|"
               r"government\s+employee|stay-at-home\s+(?:mom|dad|mother|father)|job\s+seeker|self-employed|"
               r"freelance\s+\w+|graduate|housekeeper|staff|coach|instructor|trainer|pastor|professor")
TITLES = rf"{JOB_TITLES}|{MORE_TITLES}"
_TITLE = re.compile(rf"\b(?:{TITLES})s?\b", _I)
# Words that make "I'm a ... teacher" something other than the learner's job today.
_NOT_A_JOB = re.compile(r"\b(?:not|no|never|former|ex|future|good|bad|great|terrible|poor|best|worst|"
                        r"like|such|kind|sort|really|very|so|pretty|working|work|as|going|want|trying|studying|become|be)\b", _I)

_BE = r"(?:i'm|i\s+am|im)"
_JOB = [re.compile(rf"\b{_BE}\s+(?:an?\s+)?((?:[\w-]+\s+){{0,2}}?(?:{TITLES})s?)\b", _I),
        re.compile(rf"\bi(?:\s+|'m\s+|\s+am\s+)(?:work|working)\s+(?:(?:for|at|in)\s+[\w\s]{{2,30}}?\s+)?as\s+(?:an?\s+)?"
                   rf"((?:[\w-]+\s+){{0,2}}?(?:{TITLES})s?)\b", _I),
        re.compile(rf"\bmy\s+(?:job|occupation|profession|work)\s+is\s+(?:an?\s+)?((?:[\w-]+\s+){{0,2}}?"
                   rf"(?:{TITLES})s?)\b", _I)]
_JOB_OTHER = [re.compile(r"\bi(?:\s+|'m\s+|\s+am\s+)(?:work|working)\s+as\s+(?:an?\s+)?([\w-]+(?:\s+[\w-]+){0,2}?)"
                         r"(?=[,.!?;]|\s+(?:at|in|for|and|but|since)\b|$)", _I),
              re.compile(r"\bmy\s+(?:job|occupation|profession)\s+is\s+an?\s+([\w-]+(?:\s+[\w-]+){0,2}?)"
                         r"(?=[,.!?;]|\s+(?:at|in|for|and|but|since)\b|$)", _I)]
_TEACH = re.compile(r"\b(?:i(?:\s+|'m\s+|\s+am\s+)(?:teach|teaching)|my\s+job\s+is\s+(?:to\s+)?teach(?:ing)?)\s+"
                    r"((?:[\w-]+\s+){0,2}?[\w-]+)(?=\s+(?:at|in|to|for|on|with|and)\b|[,.!;]|$)", _I)
_NOT_SUBJECT = re.compile(r"^(?:[Mm]y|your|his|her|our|their|him|them|me|myself|it|there|here|at|in|to|for)\b")
_PEOPLE = re.compile(r"\b(?:students|kids|children|adults|people|teenagers|beginners|class(?:es)?)$", _I)

_PLACE_WORDS = (r"company|bank|hospital|clinic|school|university|factory|office|restaurant|cafe|café|hotel|shop|"
                r"store|startup|start-up|government|marketing|sales|finance|accounting|it|hr|education|design|"
                r"advertising|construction|manufacturing|retail|tourism|insurance|law\s+firm|lab|laboratory|"
                r"department|team|agency|firm|airline|museum|library|kindergarten|academy|hagwon")
_WORK_AT = re.compile(rf"\bi(?:\s+|'m\s+|\s+am\s+)(?:work|working)\s+(?:part-time\s+|full-time\s+)?(at|in|for)\s+"
                      rf"((?:an?\s+|the\s+)?(?:[\w&'-]+\s+){{0,3}}(?:{_PLACE_WORDS})s?"
                      r"|[A-Z][\w&'-]*(?:\s+[A-Z][\w&'-]*){0,3})(?=[,.!;]|\s|$)", _I)
_OWN_BUSINESS = re.compile(r"\bi\s+(run|own|have)\s+((?:a|an|my\s+own)\s+(?:small\s+|little\s+)?(?:[\w-]+\s+)?"
                           r"(?:cafe|café|restaurant|shop|store|business|company|bakery|academy|hagwon|clinic|bar|"
                           r"salon|studio|office|startup|farm))\b", _I)
_IN_TEAM = re.compile(r"\b(?:i'm|i\s+am)\s+in\s+((?:the\s+)?[\w-]+\s+(?:team|department))\b", _I)
_WORK_NOT_A_PLACE = re.compile(r"^(?:the\s+)?(?:home|night|nights|weekends?|morning|evening|afternoon|shifts?|"
                               r"moment|same|first|end|time|here|there)\b", _I)

# Interests: "I like/love/enjoy X", "I'm interested in X", "My hobby is X", "In my free time I X".
_FOND = (r"like|love|enjoy|into|(?:a\s+)?(?:big\s+|huge\s+)?fan\s+of|crazy\s+about|passionate\s+about|keen\s+on|"
         r"fond\s+of|mad\s+about|interest(?:ed|ing)?\s+(?:in|about)")
_ITEMS_END = r"(?=[.!?;]|\s+(?:but|because|so|when|with|on|at|after|before|every|since|than)\b|,?\s+and\s+i\b|$)"
_LIKE = re.compile(rf"\b(?:i(?:\s+|'m\s+|\s+am\s+)|im\s+)(?:really\s+|also\s+|just\s+|very\s+|so\s+)?(?:{_FOND})\s+"
                   rf"([\w\s,'-]{{2,60}}?){_ITEMS_END}", _I)
_HOBBY = [re.compile(rf"\bmy\s+(?:hobby|hobbies|favou?rite\s+(?:hobby|thing|activity|pastime))\s+(?:is|are)\s+"
                     rf"([\w\s,'-]{{2,60}}?){_ITEMS_END}", _I),
          re.compile(r"^([\w'-]+(?:\s+[\w'-]+){0,2})\s+(?:is|are)\s+(?:my\s+(?:favou?rite\s+)?(?:hobby|hobbies|pastime|"
                     r"thing|favou?rite\s+(?:thing|activity))|what\s+i\s+(?:do|love|enjoy))\b", _I),
          re.compile(r"\bi\s+(?:usually\s+|often\s+)?spend\s+(?:a\s+lot\s+of\s+|most\s+of\s+my\s+|my\s+|much\s+)?"
                     r"(?:free\s+|spare\s+)?time\s+(?:on\s+|to\s+|with\s+|for\s+)?"
                     rf"([\w\s,'-]{{2,60}}?){_ITEMS_END}", _I),
          re.compile(r"\b(?:in\s+my\s+(?:free|spare)\s+time|on\s+(?:the\s+)?weekends?|after\s+work|after\s+school),?\s+"
                     r"i\s+(?:usually\s+|often\s+|always\s+|sometimes\s+)?((?:go|play|watch|read|cook|bake|swim|draw|"
                     rf"paint|sing|dance|ride|climb|hike|run|jog|knit|practi[cs]e|listen)\b[\w\s,'-]{{0,40}}?){_ITEMS_END}",
                     _I)]

# Goals: "I want (to) X", "I'd like to X", "My dream is (to) X", "I'm preparing (for) X".
_GOAL_VERBS = (r"pass|get|improve|speak|study|learn|practise|practice|prepare|work|move|become|sound|understand|"
               r"read|write|talk|chat|communicate|make|use|give|present|travel|live|visit|watch|"
               r"go\s+(?:abroad|back\s+to|study|to\s+(?!(?:the\s+)?(?:bathroom|toilet|restroom|bed|sleep)\b))|"
               r"be\s+(?:able|fluent|better|good|more|an?\b)|have|find|do|take|score|join|start|open")
_GOAL = [re.compile(r"\bmy\s+(?:goal|dream|aim|plan|target|wish)\s+is\s+(?:to\s+)?"
                    rf"((?:{_GOAL_VERBS}|being|becoming|getting|passing|speaking|working|living)\b"
                    r"[\w\s'.-]{0,60}?)(?=[,.!?;]|$)", _I),
         re.compile(r"\bi(?:(?:'d|\s+would)\s+(?:really\s+)?(?:like|love)|(?:'m|\s+am)\s+(?:hoping|planning|trying|going)|"
                    r"\s+(?:really\s+)?(?:want|need|hope|plan))\s+(?:to\s+)?"
                    rf"((?:{_GOAL_VERBS})\b[\w\s'.-]{{0,60}}?)(?=[,.!?;]|\s+(?:because|so|but)\b|$)", _I),
         re.compile(r"\bi(?:'m|\s+am)\s+(?:preparing|studying)\s+(?:for\s+)?((?:the\s+)?(?:toeic|toefl|ielts|opic|"
                    r"oet|gre|gmat|sat|job\s+interviews?|an?\s+(?:job\s+)?interview|(?:an?\s+|my\s+)?\w+\s+(?:exam|test))"
                    r"[\w\s'.-]{0,30}?)(?=[,.!?;]|\s+(?:because|so|but)\b|$)", _I)]
_ABLE = re.compile(r"^be\s+able\s+to\s+", _I)

_PREF = [re.compile(r"\bplease\s+((?:correct|speak|talk|use|don't|do not|stop|explain|give|tell)\b"
                    r"[\w\s'\"-]{2,60}?)(?=[,.!?;]|$)", _I),
         re.compile(r"^((?:correct|speak|talk)\s+[\w\s'-]{2,40}?),?\s+please\b", _I),
         re.compile(r"\bi\s+prefer\s+([\w\s'-]{2,50}?)(?=[,.!?;]|$)", _I)]

# Facts about the learner's own life: where they live and come from, family, pets.
_FACT = [(re.compile(r"\bi(?:\s+|'m\s+|\s+am\s+)(?:live|living)\s+(in|near|with)\s+"
                     r"((?:[\w'-]+\s+){0,3}?[\w'-]+)(?=[,.!;]|\s+(?:and|but|because|with|for|since|now)\b|$)", _I),
          "lives {} {}"),
         (re.compile(r"\b(?:i'm|i\s+am|im)\s+(?:originally\s+)?from\s+((?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2})",
                     _I), "from {}"),
         (re.compile(r"\bi\s+(?:have|has)\s+((?:an?|one|two|three|four|\d)\s+(?:little\s+|older\s+|younger\s+)?"
                     r"(?:sons?|daughters?|kids|children|child|dogs?|cats?|brothers?|sisters?|babies|baby)"
                     r"(?:\s+(?:named|called)\s+(?-i:[A-Z])[\w'-]*)?)\b", _I),
          "has {}"),
         (re.compile(r"\b(?:i'm|i\s+am|im)\s+(married|single|divorced|pregnant)\b", _I), "{}"),
         (re.compile(r"\b(?:i'm|i\s+am|im)\s+(\d{1,2})\s+years?\s+old\b", _I), "{} years old"),
         (re.compile(r"\bi\s+was\s+born\s+in\s+((?-i:[A-Z])[\w'-]*(?:\s+(?-i:[A-Z])[\w'-]*){0,2})", _I),
          "born in {}"),
         (re.compile(r"\bi(?:\s+|'m\s+|\s+am\s+)(?:live|living)\s+alone\b", _I), "lives alone"),
         (re.compile(r"\b(?:i(?:'m|\s+am)\s+majoring|i\s+major|my\s+major\s+is)\s+(?:in\s+)?([\w\s-]{2,40}?)"
                     r"(?=[,.!;]|\s+(?:at|and|but|because)\b|$)", _I), "majors in {}"),
         (re.compile(r"\b(?:i'm|i\s+am|im)\s+(?:looking\s+for|finding)\s+(?:a\s+|an?\s+new\s+)?job\b", _I),
          "looking for a job")]

_GERUND = {"play": "playing", "watch": "watching", "read": "reading", "cook": "cooking", "bake": "baking",
           "swim": "swimming", "draw": "drawing", "paint": "painting", "sing": "singing", "dance": "dancing",
           "ride": "riding", "climb": "climbing", "hike": "hiking", "run": "running", "jog": "jogging",
           "knit": "knitting", "listen": "listening", "travel": "traveling", "take": "taking", "make": "making",
           "write": "writing", "drive": "driving", "walk": "walking", "shop": "shopping", "study": "studying",
           "learn": "learning", "eat": "eating", "visit": "visiting", "practice": "practicing",
           "practise": "practising", "meet": "meeting", "fish": "fishing", "camp": "camping", "ski": "skiing"}
_STOP_TAIL = re.compile(r"\s+(?:a lot|very much|so much|too|though|actually|now|these days|really|"
                        r"every day|all the time)$", _I)
# Case matters: "it" is "it", "IT" is a line of work.
_OWN = re.compile(r"^(?:[Mm]y|your|his|her|our|their|it|that|this|them|him|you|me|those|these|doing\s+it|"
                  r"especially|particularly|also|too|like|such)\b")


def occupation(clause: str) -> str:
    """The job the clause states: a title ("office worker", "mathematics teacher") or ""."""
    for pattern in _JOB:
        m = pattern.search(clause)
        if m and not _NOT_A_JOB.search(m.group(1)):
            return clean(m.group(1)).lower() if not m.group(1)[:1].isupper() else clean(m.group(1))
    m = _TEACH.search(clause)
    if m and not _NOT_SUBJECT.match(m.group(1)) and not _NOT_A_JOB.search(m.group(1)):
        subject = clean(m.group(1))
        return "teacher" if _PEOPLE.search(subject) else f"{subject} teacher"
    if re.search(r"\bi(?:\s+|'m\s+|\s+am\s+)(?:teach|teaching)\s+(?:at|in)\b", clause, _I):
        return "teacher"
    for pattern in _JOB_OTHER:  # an explicit cue with a job the title list lacks ("a nanny")
        m = pattern.search(clause)
        if m and not _NOT_A_JOB.search(m.group(1)) and not _OWN.match(m.group(1)):
            return clean(m.group(1))
    return ""


def workplace(clause: str) -> str:
    """Where the clause says the learner works: "works at Samsung", "works in IT company"."""
    m = _WORK_AT.search(clause)
    if m and not _WORK_NOT_A_PLACE.match(m.group(2)) and not _OWN.match(m.group(2)):
        return f"works {m.group(1).lower()} {clean(m.group(2))}"
    m = _OWN_BUSINESS.search(clause)
    if m and (m.group(1).lower() != "have" or "own" in m.group(2).lower()):
        verb = {"run": "runs", "own": "owns", "have": "has"}[m.group(1).lower()]
        return f"{verb} {re.sub(r'^my own ', 'their own ', clean(m.group(2)), flags=_I)}"
    m = _IN_TEAM.search(clause)
    return f"works in {clean(m.group(1))}" if m else ""


def interests(clause: str) -> list[str]:
    out: list[str] = []
    for pattern in (_LIKE, *_HOBBY):
        for m in pattern.finditer(clause):
            for part in re.split(r"\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+", m.group(1)):
                item = activity(part)
                if item and not _OWN.match(item) and item.lower() not in {o.lower() for o in out}:
                    out.append(item)
    return out


def goals(clause: str) -> list[str]:
    out = []
    for pattern in _GOAL:
        for m in pattern.finditer(clause):
            goal = _ABLE.sub("", clean(m.group(1)))
            if len(goal) >= 3:
                out.append(goal)
    return out


def preferences(clause: str) -> list[str]:
    return [clean(m.group(1)) for pattern in _PREF for m in pattern.finditer(clause)]


def facts(clause: str) -> list[str]:
    out = []
    for pattern, template in _FACT:
        m = pattern.search(clause)
        if m and not (m.lastindex == 2 and _WORK_NOT_A_PLACE.match(m.group(2))):
            out.append(template.format(*(clean(g) for g in m.groups())))
    return out


def activity(text: str) -> str:
    """An interest in the learner's words, as a noun phrase: "to watching movies" ->
    "watching movies", "play guitar" -> "playing guitar", "go hiking" -> "hiking"."""
    text = clean(text)
    text = re.sub(r"^to\s+", "", text, flags=_I)
    text = re.sub(r"^go(?:ing)?\s+(?=\w+ing\b)", "", text, flags=_I)  # "go camping" -> "camping"
    first, _, rest = text.partition(" ")
    if first.lower() in _GERUND:
        text = " ".join(w for w in (_GERUND[first.lower()], rest) if w)
    return text if len(text) >= 2 else ""


def clean(text: str) -> str:
    text = " ".join(text.split()).strip(" ,'\"-")
    while True:
        shorter = _STOP_TAIL.sub("", text)
        if shorter == text:
            return text
        text = shorter
