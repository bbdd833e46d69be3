"""What every emotion scorer shares: probabilities -> ranked EmotionScores -> predicted labels."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tutor_app.core.types import EMOTION_LABELS, EmotionScore

NEUTRAL = EMOTION_LABELS.index("neutral")
# Bounds the tokenizer's work on pasted essays; the model window (64-128 tokens) is far shorter.
MAX_CHARS = 4000


def clean(text: str | None) -> str:
    return (text or "").strip()[:MAX_CHARS]


class ProbabilityScorer:
    """Subclasses set `thresholds` (one per label, EMOTION_LABELS order) and implement
    `_probabilities(non_empty_texts) -> (n, 28) float array`."""

    thresholds: np.ndarray
    name: str = "emotion"

    def _probabilities(self, texts: list[str], batch_size: int) -> np.ndarray:
        raise NotImplementedError

    def probabilities(self, texts: Sequence[str], batch_size: int = 32) -> np.ndarray:
        """(n, 28) sigmoid scores; empty or blank text is plain neutral (1.0, others 0)."""
        texts = [clean(t) for t in texts]
        out = np.zeros((len(texts), len(EMOTION_LABELS)), dtype=np.float32)
        live = [i for i, t in enumerate(texts) if t]
        for i, t in enumerate(texts):
            if not t:
                out[i, NEUTRAL] = 1.0
        if live:
            probs = self._probabilities([texts[i] for i in live], batch_size)
            out[live] = np.clip(np.nan_to_num(probs, nan=0.0), 0.0, 1.0)
        return out

    def score(self, text: str) -> list[EmotionScore]:
        return self.score_batch([text])[0]

    def score_batch(self, texts: Sequence[str]) -> list[list[EmotionScore]]:
        return [rank(row) for row in self.probabilities(list(texts))]

    def predicted(self, scores: Sequence[EmotionScore]) -> list[str]:
        """Labels at or over their own threshold, highest first (may be empty for a vague text)."""
        by_label = {s.label: s.score for s in scores}
        hits = [(by_label[lab], lab) for j, lab in enumerate(EMOTION_LABELS)
                if lab in by_label and by_label[lab] >= float(self.thresholds[j])]
        return [lab for _, lab in sorted(hits, key=lambda h: -h[0])]


def rank(row: np.ndarray) -> list[EmotionScore]:
    order = np.argsort(-row, kind="stable")
    return [EmotionScore(EMOTION_LABELS[j], float(row[j])) for j in order]


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
