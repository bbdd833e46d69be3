"""A learner's within-turn pauses in one call, as kept in its report (tutor/report.py).

The live call measures them (call/pauses.py reads them back to set the thinking time);
the report only stores and reads the numbers, so they live beside the report.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PauseStats:
    """A learner's within-turn pauses in one call."""

    count: int = 0
    median_ms: float = 0.0
    p90_ms: float = 0.0

    @classmethod
    def from_pauses(cls, pauses_ms: list[float]) -> "PauseStats":
        if not pauses_ms:
            return cls()
        ordered = sorted(float(p) for p in pauses_ms)
        return cls(len(ordered), round(percentile(ordered, 0.5), 1), round(percentile(ordered, 0.9), 1))

    def to_dict(self) -> dict[str, float]:
        return {"count": self.count, "median_ms": self.median_ms, "p90_ms": self.p90_ms}

    @classmethod
    def from_dict(cls, data: Any) -> "PauseStats":
        """ValueError for anything that is not a stored PauseStats (a hand-edited or old report)."""
        try:
            stats = cls(int(data["count"]), float(data["median_ms"]), float(data["p90_ms"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not pause stats: {exc}") from None
        if stats.count < 0 or stats.median_ms < 0 or stats.p90_ms < stats.median_ms:
            raise ValueError("not pause stats: negative or unordered values")
        return stats


def percentile(ordered: list[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default), without numpy."""
    pos = q * (len(ordered) - 1)
    low = int(pos)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (pos - low)
