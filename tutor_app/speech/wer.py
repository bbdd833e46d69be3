"""Word error rate with the text normalisation STT comparisons need.

Case, punctuation and hyphens are ignored, digits are spelled out ("10" == "ten") and
common spelling variants are folded ("mister" == "mr"), so a WER counts words the
recogniser got wrong, not formatting differences between references and Whisper.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

_VARIANTS = {
    "mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint", "ok": "okay",
    "colour": "color", "favourite": "favorite", "metres": "meters", "metre": "meter",
    "centre": "center", "practise": "practice",
}


def normalize_words(text: str) -> list[str]:
    """Lowercase words without punctuation, numbers spelled out, variants folded."""
    from tutor_app.speech.text_normalize import number_to_words

    text = text.lower().replace("’", "'")
    text = re.sub(r"(?<=\d),(?=\d{3})", "", text)  # 1,000 -> 1000
    text = re.sub(r"\d+", lambda m: " " + number_to_words(int(m.group())) + " ", text)
    text = re.sub(r"[-‐–—/]", " ", text)  # "cold-hearted" == "cold hearted"
    text = re.sub(r"[^a-z0-9' ]+", " ", text)
    words = [w.strip("'") for w in text.split()]
    return [_VARIANTS.get(w, w) for w in words if w]


@dataclass(frozen=True)
class WerResult:
    errors: int  # substitutions + deletions + insertions
    reference_words: int

    @property
    def wer(self) -> float:
        if self.reference_words == 0:
            return 0.0 if self.errors == 0 else 1.0
        return self.errors / self.reference_words


def edit_distance(ref: list[str], hyp: list[str]) -> int:
    previous = list(range(len(hyp) + 1))
    for i, r in enumerate(ref, 1):
        current = [i] + [0] * len(hyp)
        for j, h in enumerate(hyp, 1):
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (r != h))
        previous = current
    return previous[-1]


def wer_counts(ref: str, hyp: str) -> WerResult:
    ref_words, hyp_words = normalize_words(ref), normalize_words(hyp)
    return WerResult(edit_distance(ref_words, hyp_words), len(ref_words))


def wer(ref: str, hyp: str) -> float:
    """Word error rate of `hyp` against `ref` after normalisation (0.0 = perfect)."""
    return wer_counts(ref, hyp).wer
