"""A transformers GoEmotions classifier installed in the models folder (e.g. a
roberta-base-go_emotions folder): sigmoid over all labels, CUDA when present. Optional:
transformers and torch are the `hf` extra, which the installed app does not carry.

The label order is taken from the model's own `id2label` and mapped onto EMOTION_LABELS,
so a model that lists the labels in another order still scores correctly. Per-label
thresholds come from an optional `thresholds.json` in the folder (a list in
EMOTION_LABELS order, or a {label: threshold} object), else 0.5.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path

import numpy as np

from tutor_app.core.types import EMOTION_LABELS
from tutor_app.emotion.common import ProbabilityScorer
from tutor_app.errors import TutorError

log = logging.getLogger(__name__)

MAX_TOKENS = 128  # GoEmotions comments are short; the rest of a long text adds little


def label_order(id2label: dict, num_labels: int) -> list[int]:
    """For each EMOTION_LABELS entry, the model output index that carries it."""
    names = {int(k): str(v).strip().lower() for k, v in (id2label or {}).items()}
    if sorted(names.values()) == sorted(EMOTION_LABELS):
        where = {v: k for k, v in names.items()}
        return [where[lab] for lab in EMOTION_LABELS]
    if num_labels == len(EMOTION_LABELS) and all(v.startswith("label_") for v in names.values()):
        return list(range(num_labels))  # unnamed heads: assume GoEmotions index order
    raise TutorError(f"the emotion model's labels are not the 28 GoEmotions labels: {sorted(names.values())[:5]}...")


def read_thresholds(folder: Path) -> np.ndarray:
    path = folder / "thresholds.json"
    th = np.full(len(EMOTION_LABELS), 0.5, dtype=np.float32)
    if not path.is_file():
        return th
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            for j, lab in enumerate(EMOTION_LABELS):
                th[j] = float(data.get(lab, 0.5))
        elif len(data) == len(EMOTION_LABELS):
            th[:] = [float(x) for x in data]
    except (OSError, ValueError, TypeError) as exc:
        log.warning("ignoring unreadable %s: %s", path, exc)
    return th


class TransformersUnavailable(TutorError):
    """transformers or torch is not installed (the app runs without them: the `hf` extra)."""


class TransformersScorer(ProbabilityScorer):
    name = "transformers"

    def __init__(self, model, tokenizer, order: list[int], thresholds: np.ndarray, device: str) -> None:
        self.model = model
        self.tokenizer = tokenizer
        self.order = order
        self.thresholds = thresholds
        self.device = device

    @classmethod
    def load(cls, folder: Path, device: str | None = None) -> "TransformersScorer":
        folder = Path(folder)
        try:
            import torch
            from transformers import AutoModelForSequenceClassification, AutoTokenizer
        except ImportError as exc:
            raise TransformersUnavailable(
                f"the emotion model {folder.name} needs transformers and torch, which are not installed "
                f"({exc.name or exc}; pip install 'tutor-app[hf]')") from None
        if not (folder / "config.json").is_file():
            raise TutorError(f"no transformers emotion model in {folder} (config.json missing)")
        device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        try:
            tok = AutoTokenizer.from_pretrained(str(folder))
            model = AutoModelForSequenceClassification.from_pretrained(str(folder))
        except (OSError, ValueError) as exc:
            raise TutorError(f"cannot load the emotion model in {folder}: {exc}") from exc
        order = label_order(model.config.id2label, model.config.num_labels)
        model.to(device).eval()
        return cls(model, tok, order, read_thresholds(folder), device)

    def _probabilities(self, texts: list[str], batch_size: int) -> np.ndarray:
        import torch

        out = np.zeros((len(texts), len(EMOTION_LABELS)), dtype=np.float32)
        for s in range(0, len(texts), max(1, batch_size)):
            enc = self.tokenizer(texts[s:s + batch_size], truncation=True, padding=True,
                                 max_length=MAX_TOKENS, return_tensors="pt").to(self.device)
            with torch.inference_mode():
                logits = self.model(**enc).logits.float()
            out[s:s + batch_size] = torch.sigmoid(logits).cpu().numpy()[:, self.order]
        return out
