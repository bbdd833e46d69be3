"""Sentence embeddings from the bundled all-MiniLM-L6-v2 (sentence-transformers).

The model loads on first use, strictly offline (HF_HUB_OFFLINE semantics and
local_files_only), so commands that only list or delete memories stay instant.
"""
from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tutor_app.errors import ModelMissingError, TutorError

if TYPE_CHECKING:
    import numpy as np

DEFAULT_DIM = 384
_QUERY_CACHE = 512  # recent single-text embeddings (a turn embeds the same text for recall and history)


def _read_dim(folder: Path) -> int:
    for rel in ("1_Pooling/config.json", "config.json"):
        try:
            cfg = json.loads((folder / rel).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in ("word_embedding_dimension", "hidden_size"):
            if isinstance(cfg.get(key), int):
                return cfg[key]
    return DEFAULT_DIM


class SentenceEmbedder:
    """L2-normalised float32 vectors; thread-safe; satisfies core.protocols.Embedder."""

    def __init__(self, name: str, folder: Path, device: str = "cpu") -> None:
        self.name = name
        self.folder = Path(folder)
        self.device = device
        self.dim = _read_dim(self.folder)
        self._model = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._pool = None

    def _load(self):
        if self._model is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never touch the network
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            try:
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(self.folder), device=self.device, local_files_only=True)
            except Exception as exc:  # noqa: BLE001 - a broken model folder is one clear line
                raise ModelMissingError(
                    f"cannot load the embedder '{self.name}' from {self.folder}: {type(exc).__name__}: {exc}"
                ) from None
            get_dim = getattr(self._model, "get_embedding_dimension", None) or self._model.get_sentence_embedding_dimension
            dim = int(get_dim() or self.dim)
            self.dim = dim
        return self._model

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) == 1:
            return self.embed_one(texts[0])[None, :]
        with self._lock:
            model = self._load()
            # Batches too run single-threaded: they are background work (import, merge)
            # and must not take both cores from a live turn.
            vecs = self._single_pool().submit(
                model.encode, texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
                show_progress_bar=False).result()
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def embed_one(self, text: str) -> "np.ndarray":
        import numpy as np

        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
            model = self._load()
            vec = self._single_pool().submit(
                model.encode, [text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False
            ).result()[0]
            vec = np.ascontiguousarray(vec, dtype=np.float32)
            vec.setflags(write=False)
            self._cache[text] = vec
            if len(self._cache) > _QUERY_CACHE:
                self._cache.popitem(last=False)
            return vec

    def _single_pool(self):
        """A one-thread worker whose torch runs single-threaded (the setting is per thread,
        so the rest of the app keeps its threads). One short sentence is a few tiny
        matmuls: extra threads only add sync cost, and on a busy 2-core CPU OpenMP
        spinning made a query take ~80 ms instead of ~9 ms (measured here)."""
        if self._pool is None:
            from concurrent.futures import ThreadPoolExecutor

            def init() -> None:
                import torch

                torch.set_num_threads(1)

            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed", initializer=init)
        return self._pool

    def warm_up(self) -> None:
        self.embed_one("warm up")


def load_embedder(settings, registry) -> SentenceEmbedder:
    """The embedder named in settings.memory.embedder, from the model registry."""
    name = settings.memory.embedder
    try:
        folder = registry.path(name)
    except ModelMissingError:
        raise
    except TutorError:
        raise
    return SentenceEmbedder(name, folder)
