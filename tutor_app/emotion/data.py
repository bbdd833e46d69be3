"""GoEmotions TSV reading (train/dev) and dataset fingerprints for provenance."""
from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from tutor_app.core.types import EMOTION_LABELS


@dataclass(frozen=True)
class Example:
    text: str
    labels: tuple[int, ...]  # indexes into EMOTION_LABELS


def read_tsv(path: Path) -> list[Example]:
    """`text \\t comma-separated label ids \\t comment id`, no header."""
    rows: list[Example] = []
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.rstrip("\n").split("\t")
            if len(parts) < 2:
                continue
            ids = tuple(int(x) for x in parts[1].split(",") if x.strip())
            if any(i < 0 or i >= len(EMOTION_LABELS) for i in ids):
                raise ValueError(f"{path}: label id out of range in {parts[1]!r}")
            rows.append(Example(parts[0], ids))
    return rows


def multi_hot(examples: list[Example]):
    import numpy as np

    y = np.zeros((len(examples), len(EMOTION_LABELS)), dtype=np.float32)
    for i, ex in enumerate(examples):
        y[i, list(ex.labels)] = 1.0
    return y


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(chunk):
            h.update(block)
    return h.hexdigest()
