"""Did the learner get a practice item right in this call? Read from their own lines:

- a mistake: its better span said (and the mistake span not, in that line) is "used", a
  success; the mistake span said again is "repeated", a failure; the last line that shows
  either decides ("I go- I went to the market" ends as used);
- a word: said at all is "said", a success;
- neither: the item was not practised in this call; its schedule does not move.

Only the items planned for the call are judged (the tutor was asked to give them a
chance). Spans (practice/items.py) keep one word of context each side; still, a correct
sentence with the same words ("I go to work every day" against "I go to" -> "I went to")
counts as a repeat: matching words, not meaning, is the known limit of these rules.

An item that fails the gates (practice/gates.py) is never judged: a "word" that was the
learner's own wrong line, or a "better" form that still holds the mistake, would turn
saying the error again into a success.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from tutor_app.practice.gates import item_fault
from tutor_app.practice.items import MISTAKE, PracticeItem, words

USED, REPEATED, SAID = "used", "repeated", "said"
SUCCESS = (USED, SAID)


@dataclass(frozen=True)
class Outcome:
    item_id: str
    outcome: str  # used | repeated | said
    line: str  # the learner's line that decided it

    @property
    def success(self) -> bool:
        return self.outcome in SUCCESS


def _contains(line_words: list[str], span: str) -> bool:
    if not span:
        return False
    return f" {span} " in f" {' '.join(line_words)} "


def judge(item: PracticeItem, lines: Iterable[str]) -> Outcome | None:
    if item_fault(item):
        return None  # not a real item: neither a tick nor a miss
    decided: Outcome | None = None
    for line in lines:
        said = words(line)
        if item.kind == MISTAKE:
            mistake, better = item.mistake_span, item.better_span
            if _contains(said, mistake):
                decided = Outcome(item.id, REPEATED, line)
            elif _contains(said, better):  # the better form, without the mistake
                decided = Outcome(item.id, USED, line)
        elif _contains(said, item.better_span):
            decided = Outcome(item.id, SAID, line)
    return decided


def judge_all(items: Iterable[PracticeItem], lines: list[str]) -> list[Outcome]:
    out = []
    for item in items:
        outcome = judge(item, lines)
        if outcome is not None:
            out.append(outcome)
    return out
