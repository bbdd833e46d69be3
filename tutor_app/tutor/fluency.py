"""Fluency and clarity of a call, measured from what the recogniser timed, not judged:

- speaking rate: words per minute of speaking time (the first word's start to the last
  word's end, per spoken turn);
- runs: how many words the learner says between pauses (a pause is a gap of at least
  PAUSE_S between two words), averaged;
- pause ratio: the share of speaking time spent in those pauses;
- unsure words: the words Whisper was least sure of ("words the tutor had trouble
  hearing"). This is the recogniser's confidence, NOT a pronunciation score: noise, a
  name or a fast run can lower it as much as an accent does, and the app says so.

Typed turns have no timings and are left out; a call with no spoken turn has no fluency.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

PAUSE_S = 0.25  # shorter gaps are part of connected speech (the usual fluency cut-off)
UNSURE_BELOW = 0.5  # word probability under which the recogniser was unsure
MAX_UNSURE = 8


@dataclass
class TurnFluency:
    words: int = 0
    speaking_s: float = 0.0
    pause_s: float = 0.0
    runs: list[int] = field(default_factory=list)  # words per run between pauses
    unsure: list[tuple[str, float]] = field(default_factory=list)  # (word, probability)


def turn_fluency(segments: Sequence[Any], pauses: Sequence[tuple[float, float]] = ()) -> TurnFluency | None:
    """From a transcript's segments (with words) and the VAD's quiet stretches; None when
    there are no word timings. Whisper stretches words over short silences, so the pauses
    come from the VAD when it gave them, else from gaps between the timed words."""
    timed = [w for s in segments for w in getattr(s, "words", ()) if str(w.word).strip()]
    if not timed:
        return None
    first, last = timed[0].start, timed[-1].end
    out = TurnFluency(words=len(timed), speaking_s=max(last - first, 0.0))
    inside = sorted((max(a, first), min(b, last)) for a, b in pauses if b - a >= PAUSE_S and a < last and b > first)
    inside = [(a, b) for a, b in inside if b - a >= PAUSE_S]
    if not pauses:
        inside = [(x.end, y.start) for x, y in zip(timed, timed[1:]) if y.start - x.end >= PAUSE_S]
    out.pause_s = sum(b - a for a, b in inside)
    runs = [0] * (len(inside) + 1)
    for word in timed:  # a word belongs to the run it starts in
        runs[sum(1 for a, _ in inside if a <= word.start)] += 1
    out.runs = [r for r in runs if r]
    out.unsure = [(_clean(w.word), float(w.probability)) for w in timed
                  if w.probability < UNSURE_BELOW and _clean(w.word)]
    return out


def call_fluency(turns: Iterable[TurnFluency | None]) -> dict[str, Any]:
    """The call's figures for the report ({} when nothing was spoken)."""
    measured = [t for t in turns if t is not None and t.words]
    if not measured:
        return {}
    words = sum(t.words for t in measured)
    speaking = sum(t.speaking_s for t in measured)
    runs = [r for t in measured for r in t.runs]
    worst: dict[str, float] = {}
    for t in measured:
        for word, p in t.unsure:
            key = word.lower()
            worst[key] = min(p, worst.get(key, 1.0))
    unsure = sorted(worst.items(), key=lambda kv: kv[1])[:MAX_UNSURE]
    return {
        "words_per_minute": round(60.0 * words / speaking, 1) if speaking > 0 else 0.0,
        "mean_run_words": round(sum(runs) / len(runs), 1),
        "pause_ratio": round(sum(t.pause_s for t in measured) / speaking, 3) if speaking > 0 else 0.0,
        "spoken_turns": len(measured),
        "unsure_words": [{"word": w, "probability": round(p, 2)} for w, p in unsure],
    }


def _clean(word: str) -> str:
    return str(word).strip().strip(".,!?;:\"'()").strip()

