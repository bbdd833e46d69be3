"""The honest short answer when the model's reply could not be used (it parroted twice):
a recast of the learner's line when it has an error these rules fix for sure, else a
varied "tell me more". Nothing is invented: a line the rules do not cover gets no recast.

Covered: a past-time marker with a present verb ("I am go to school yesterday" -> "Oh,
you went to school yesterday?") and a third-person subject without -s ("My sister like
coffee" -> "Oh, your sister likes coffee?"), for the common verbs listed here.
"""
from __future__ import annotations

import difflib
import re

from tutor_app.practice.items import IRREGULAR_PAST
from tutor_app.tutor.parrot import STOPWORDS, learner_names, words

# Past forms of the base verbs the rules know: the irregular ones are the practice items' table
# (one list); "is"/"are" are left out: a base form here is an error after a past time.
PAST = {**{base: past for base, past in IRREGULAR_PAST.items() if base not in ("is", "are")},
        "watch": "watched", "play": "played", "visit": "visited", "cook": "cooked", "study": "studied",
        "work": "worked", "walk": "walked", "talk": "talked", "call": "called", "clean": "cleaned",
        "stay": "stayed", "travel": "traveled", "listen": "listened", "start": "started",
        "finish": "finished", "move": "moved", "live": "lived", "like": "liked", "love": "loved",
        "want": "wanted", "need": "needed", "enjoy": "enjoyed", "help": "helped", "open": "opened"}
THIRD = {"have": "has", "do": "does", "go": "goes", "watch": "watches", "study": "studies",
         "fly": "flies", "teach": "teaches", "finish": "finishes"}
_PAST_TIME = re.compile(r"\b(yesterday|last (?:night|week|weekend|month|year|monday|tuesday|wednesday|"
                        r"thursday|friday|saturday|sunday|summer|winter)|\w+ (?:days?|weeks?|months?|years?) ago)\b",
                        re.IGNORECASE)
_FIRST = re.compile(r"^\s*((?:yesterday|last \w+|\w+ \w+ ago),?\s+)?(I|We|He|She|They)\s+(?:(?:am|are|was|were)\s+)?([a-z]+)\b(.*)$", re.IGNORECASE)
_THIRD = re.compile(r"^\s*(He|She|My (?:[a-z]+ ){0,2}?(?:sister|brother|mother|father|mom|dad|friend|"
                    r"boss|husband|wife|son|daughter|teacher|cat|dog|company|team))\s+([a-z]+)\b(.*)$",
                    re.IGNORECASE)
_PARTICIPLE = re.compile(r"\s+(?:been|gone|done|seen|had|made|taken|eaten|met|bought|\w+ed)\b", re.IGNORECASE)
_SWAP_CONTRACTED = {"i'm": "you're", "i've": "you've", "i'll": "you'll", "i'd": "you'd", "we're": "you're"}
_SWAP = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
         "we": "you", "us": "you", "our": "your", "am": "are"}
# "was" becomes "were" only with the "I" / "we" it goes with ("it was good" stays as it is).
_I_WAS = re.compile(r"\b(?:(I|[Ww]e)(\s+)was|([Ww])as(\s+)(I|we))\b")
FOLLOW_UPS = ("Tell me more about that.", "Oh, really? Can you tell me more?", "I see. What happened next?",
              "That's interesting. How did you feel about it?", "Mm-hm. And then?")
AFTER_RECAST = ("Tell me more about that.", "Can you tell me more?", "What happened next?",
                "How did you feel about it?", "And then?")  # after "Oh, you went...?": no second "Oh"


def recast(line: str) -> str | None:
    """A recast that fixes an error these rules are sure of, or None."""
    first = re.split(r"(?<=[.!?])\s+", line.strip())
    for clause in first:
        fixed = _past(clause) or _agreement(clause)
        if fixed:
            return fixed
    return None


def _past(clause: str) -> str | None:
    m = _FIRST.match(clause)
    if m is None or not _PAST_TIME.search(clause):
        return None
    verb = m.group(3).lower()
    if verb not in PAST or _PARTICIPLE.match(m.group(4)):
        return None  # already past ("went"), a perfect ("have been"), or a verb not listed: no guess
    when = (m.group(1) or "").lower()
    return f"Oh, {when}{_swap(m.group(2)).lower()} {PAST[verb]}{_swap(_tail(m.group(4)))}?"


def _agreement(clause: str) -> str | None:
    m = _THIRD.match(clause)
    if m is None or _PAST_TIME.search(clause):
        return None
    verb = m.group(2).lower()
    if verb not in PAST:  # the base forms listed; "likes" or "is" are not errors
        return None
    third = THIRD.get(verb, verb + "s")
    return f"Oh, {_swap(m.group(1)).lower()} {third}{_swap(_tail(m.group(3)))}?"


def _tail(rest: str) -> str:
    return rest.rstrip(" .!?,")


def _swap(text: str) -> str:
    """The learner's words as the tutor says them back: I -> you, my -> your."""
    text = _I_WAS.sub(lambda m: f"{m[1]}{m[2]}were" if m[1] else f"{m[3]}ere{m[4]}{m[5]}", text)
    text = re.sub(r"\b[A-Za-z]+['\u2019][a-z]+\b",
                  lambda m: _SWAP_CONTRACTED.get(m.group(0).lower().replace("\u2019", "'"), m.group(0)), text)
    return re.sub(r"(?<!')\b[A-Za-z]+\b(?!')", lambda m: _SWAP.get(m.group(0).lower(), m.group(0)), text)


def repair(sentence: str, learner_line: str) -> str | None:
    """The model said the learner's sentence back as its own but corrected on the way
    ("Yesterday, I ate kimchi stew with my family."): said back to the learner it is a
    recast ("Yesterday, you ate kimchi stew with your family?"). Only a near copy with at
    most two words changed qualifies, and no content word may be added: the fix is the
    model's, the rest is the learner's own sentence. None when it is not such a copy."""
    mine = words(sentence)
    for clause in re.split(r"(?<=[.!?])\s+", learner_line.strip()):
        theirs = words(clause)
        if len(theirs) < 4 or mine == theirs:
            continue
        ops = difflib.SequenceMatcher(a=theirs, b=mine, autojunk=False).get_opcodes()
        same = sum(i2 - i1 for tag, i1, i2, _, _ in ops if tag == "equal")
        changed = [(tag, theirs[i1:i2], mine[j1:j2]) for tag, i1, i2, j1, j2 in ops if tag != "equal"]
        if same < 0.7 * len(theirs) or not changed or sum(max(len(a), len(b)) for _, a, b in changed) > 2:
            continue
        if any(w not in STOPWORDS for tag, _, b in changed if tag == "insert" for w in b):
            continue  # an added content word: not a fix of the learner's sentence
        said = _swap(sentence.strip()).rstrip(" .!")
        return "Oh, " + said[:1].lower() + said[1:] + "?" if not said.endswith("?") else None
    return None


_NAME_QUESTION = re.compile(r"\b(?:what(?:'s| is) my name|do you (?:know|remember) my name|who am i)\b", re.IGNORECASE)


def name_answer(line: str, name: str) -> str | None:
    """The learner asks their own name: the known one, or honestly none (a small model
    invents one). None when the line asks something else."""
    if not _NAME_QUESTION.search(line):
        return None
    return f"Your name is {name}." if name else "I don't know your name yet. What is it?"


def greeting(line: str) -> str | None:
    """The learner says their name: greet them by it (a small model takes the name as its own)."""
    names = sorted(learner_names([line]))
    return f"Nice to meet you, {names[0]}!" if names else None


def follow_up(turn: int, after_recast: bool = False) -> str:
    choices = AFTER_RECAST if after_recast else FOLLOW_UPS
    return choices[turn % len(choices)]


def fallback_reply(learner_line: str, turn: int) -> str:
    """What the tutor says instead of an unusable reply: a sure recast with a question,
    else one of the follow-ups (varied by `turn`, so a call never hears one line twice in a row)."""
    fixed = recast(learner_line)
    return f"{fixed} {follow_up(turn, after_recast=True)}" if fixed else follow_up(turn)
