"""The honest short answer when the model's reply could not be used (it parroted twice):
a recast of the learner's line when it has an error these rules fix for sure, else a
varied "tell me more". Nothing is invented: a line the rules do not cover gets no recast.

Covered: a past-time marker with a present verb ("I am go to school yesterday" -> "Oh,
you went to school yesterday?") and a third-person subject without -s ("My sister like
coffee" -> "Oh, your sister likes coffee?"), for the common verbs listed here.
"""
from __future__ import annotations

import re

PAST = {"go": "went", "eat": "ate", "see": "saw", "buy": "bought", "meet": "met", "have": "had",
        "do": "did", "come": "came", "take": "took", "make": "made", "get": "got", "drink": "drank",
        "read": "read", "write": "wrote", "sleep": "slept", "leave": "left", "find": "found",
        "give": "gave", "tell": "told", "think": "thought", "feel": "felt", "run": "ran",
        "swim": "swam", "sing": "sang", "begin": "began", "bring": "brought", "teach": "taught",
        "fly": "flew", "drive": "drove", "ride": "rode", "lose": "lost", "spend": "spent",
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
_FIRST = re.compile(r"^\s*(I|We|He|She|They)\s+(?:(?:am|are|was|were)\s+)?([a-z]+)\b(.*)$", re.IGNORECASE)
_THIRD = re.compile(r"^\s*(He|She|My (?:[a-z]+ ){0,2}?(?:sister|brother|mother|father|mom|dad|friend|"
                    r"boss|husband|wife|son|daughter|teacher|cat|dog|company|team))\s+([a-z]+)\b(.*)$",
                    re.IGNORECASE)
_SWAP = {"i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
         "we": "you", "us": "you", "our": "your", "am": "are", "was": "were"}
FOLLOW_UPS = ("Tell me more about that.", "Oh, really? Can you tell me more?", "I see. What happened next?",
              "That's interesting. How did you feel about it?", "Mm-hm. And then?")


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
    verb = m.group(2).lower()
    if verb not in PAST:
        return None  # already past ("went"), or a verb not listed: no guess
    return f"Oh, {_swap(m.group(1))} {PAST[verb]}{_swap(_tail(m.group(3)))}?"


def _agreement(clause: str) -> str | None:
    m = _THIRD.match(clause)
    if m is None or _PAST_TIME.search(clause):
        return None
    verb = m.group(2).lower()
    if verb not in PAST:  # the base forms listed; "likes" or "is" are not errors
        return None
    third = THIRD.get(verb, verb + "s")
    return f"Oh, {_swap(m.group(1))} {third}{_swap(_tail(m.group(3)))}?"


def _tail(rest: str) -> str:
    return rest.rstrip(" .!?,")


def _swap(text: str) -> str:
    """The learner's words as the tutor says them back: I -> you, my -> your."""
    return re.sub(r"\b[A-Za-z]+\b", lambda m: _SWAP.get(m.group(0).lower(), m.group(0)), text)


def fallback_reply(learner_line: str, turn: int) -> str:
    """What the tutor says instead of an unusable reply: a sure recast with a question,
    else one of the follow-ups (varied by `turn`, so a call never hears one line twice in a row)."""
    follow = FOLLOW_UPS[turn % len(FOLLOW_UPS)]
    fixed = recast(learner_line)
    return f"{fixed} {follow}" if fixed else follow
