"""Sentence embeddings from the bundled all-MiniLM-L6-v2 (sentence-transformers).

The model loads on first use, strictly offline (HF_HUB_OFFLINE semantics and
local_files_only), so commands that only list or delete memories stay instant. It runs
on onnxruntime when `models install` exported it to ONNX (always, in the installed app),
else on PyTorch through sentence-transformers, an optional extra (`hf`).
"""
from __future__ import annotations

import json
import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor_app.core.onnx import load_onnx
from tutor_app.errors import ModelMissingError, TutorError

if TYPE_CHECKING:
    from concurrent.futures import ThreadPoolExecutor

    import numpy as np
    from tokenizers import Encoding

    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.settings import Settings

log = logging.getLogger(__name__)
DEFAULT_DIM = 384
BULK_MIN = 256  # texts in one call from which the ONNX encoder uses a second core
_QUERY_CACHE = 512  # recent single-text embeddings (a turn embeds the same text for recall and history)


def _read_dim(folder: Path) -> int:
    for rel in ("1_Pooling/config.json", "config.json"):
        try:
            cfg = json.loads((folder / rel).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        for key in ("word_embedding_dimension", "hidden_size"):
            value = cfg.get(key)
            if isinstance(value, int):
                return value
    return DEFAULT_DIM


class TorchMissing(Exception):
    """No ONNX encoder could load and sentence-transformers (torch) is not installed."""


class _TorchEncoder:
    """sentence-transformers on PyTorch: the fallback when no ONNX export exists."""

    def __init__(self, folder: Path, device: str) -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:  # the runtime has no torch: only the ONNX export can embed
            raise TorchMissing() from None

        self.model = SentenceTransformer(str(folder), device=device, local_files_only=True)
        get_dim = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(get_dim() or DEFAULT_DIM)
        self._pool: ThreadPoolExecutor | None = None

    def encode(self, texts: list[str]) -> "np.ndarray":
        vecs: np.ndarray = self._single_pool().submit(
            self.model.encode, texts, batch_size=64, normalize_embeddings=True, convert_to_numpy=True,
            show_progress_bar=False).result()
        return vecs

    def _single_pool(self) -> ThreadPoolExecutor:
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


class _OnnxEncoder:
    """The same encoder exported to ONNX at install (registry/convert.py), run by
    onnxruntime on one thread, with sentence-transformers' mean pooling done in numpy.
    Vectors equal the PyTorch ones (cosine 1.0 measured); ~2.4x the throughput."""

    BATCH = 32

    def __init__(self, folder: Path, onnx_file: Path) -> None:
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tokenizer.no_padding()  # the file pads to 128: we pad per batch instead
        self.tokenizer.enable_truncation(_max_seq_length(folder))
        # One thread per session: a live turn must keep a core (core/onnx.py).
        self.onnx_file = onnx_file
        self.session = load_onnx(onnx_file)
        self._second: Any = None  # a second one-thread session for bulk work (import, re-embed)
        self.inputs = {i.name for i in self.session.get_inputs()}
        width = self.session.get_outputs()[0].shape[-1]
        self.dim = width if isinstance(width, int) else _read_dim(folder)

    def encode(self, texts: list[str]) -> "np.ndarray":
        import numpy as np

        encs = self.tokenizer.encode_batch(texts)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        # Similar lengths batched together: little padding, so little wasted work.
        order = sorted(range(len(texts)), key=lambda i: len(encs[i].ids))
        batches = [order[s:s + self.BATCH] for s in range(0, len(order), self.BATCH)]
        if len(texts) >= BULK_MIN and (os.cpu_count() or 1) >= 2:
            # Bulk work (an import, a re-embed) is not a live turn: use a second core.
            from concurrent.futures import ThreadPoolExecutor

            if self._second is None:
                self._second = load_onnx(self.onnx_file)
            with ThreadPoolExecutor(max_workers=1, thread_name_prefix="embed-bulk") as pool:
                other = pool.submit(self._run, self._second, encs, batches[1::2], out)
                self._run(self.session, encs, batches[0::2], out)
                other.result()
        else:
            self._run(self.session, encs, batches, out)
        return out

    def _run(self, session: Any, encs: list[Encoding], batches: list[list[int]], out: "np.ndarray") -> None:
        import numpy as np

        for part in batches:
            width = max(len(encs[i].ids) for i in part)
            ids = np.zeros((len(part), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for row, i in enumerate(part):
                n = len(encs[i].ids)
                ids[row, :n] = encs[i].ids
                mask[row, :n] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            hidden = session.run(None, {k: v for k, v in feed.items() if k in self.inputs})[0]
            m = mask[..., None].astype(np.float32)
            vecs = (hidden * m).sum(axis=1) / np.maximum(m.sum(axis=1), 1e-9)
            vecs /= np.maximum(np.linalg.norm(vecs, axis=1, keepdims=True), 1e-12)
            out[part] = vecs


def _torch_installed() -> bool:
    from importlib.util import find_spec

    return find_spec("sentence_transformers") is not None


def _max_seq_length(folder: Path) -> int:
    try:
        cfg = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        return int(cfg.get("max_seq_length") or 256)
    except (OSError, ValueError, TypeError):
        return 256


class SentenceEmbedder:
    """L2-normalised float32 vectors; thread-safe; satisfies core.protocols.Embedder.
    Runs the ONNX export when the install made one, else PyTorch when installed: same vectors."""

    def __init__(self, name: str, folder: Path, device: str = "cpu") -> None:
        self.name = name
        self.folder = Path(folder)
        self.device = device
        self.dim = _read_dim(self.folder)
        self._encoder: _OnnxEncoder | _TorchEncoder | None = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()

    @property
    def runtime(self) -> str:
        """"onnx" or "torch": what embeds (loads the model)."""
        with self._lock:
            return "onnx" if isinstance(self._load(), _OnnxEncoder) else "torch"

    def _load(self) -> _OnnxEncoder | _TorchEncoder:
        if self._encoder is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never touch the network
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            from tutor_app.registry.convert import ONNX_EMBEDDER

            onnx_file = self.folder / ONNX_EMBEDDER
            onnx_problem = "" if onnx_file.is_file() else f"it has no ONNX export ({ONNX_EMBEDDER})"
            if onnx_file.is_file() and (self.device == "cpu" or not _torch_installed()):
                try:
                    self._encoder = _OnnxEncoder(self.folder, onnx_file)
                except Exception as exc:  # noqa: BLE001 - fall back to the PyTorch path
                    onnx_problem = f"its ONNX export is unusable ({type(exc).__name__})"
                    log.warning("ONNX embedder unusable (%s: %s)%s", type(exc).__name__, exc,
                                "; using PyTorch" if _torch_installed() else "")
            if self._encoder is None:
                try:
                    self._encoder = _TorchEncoder(self.folder, self.device)
                except TorchMissing:
                    raise ModelMissingError(
                        f"cannot load the embedder '{self.name}': {onnx_problem} and sentence-transformers "
                        f"(torch) is not installed; install them (pip install 'tutor-app[hf]'), then "
                        f"`tutor-app models install {self.name}` makes the export"
                    ) from None
                except Exception as exc:  # noqa: BLE001 - a broken model folder is one clear line
                    raise ModelMissingError(
                        f"cannot load the embedder '{self.name}' from {self.folder}: {type(exc).__name__}: {exc}"
                    ) from None
            self.dim = self._encoder.dim
        return self._encoder

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        import numpy as np

        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if len(texts) == 1:
            return self.embed_one(texts[0])[None, :]
        with self._lock:
            vecs = self._load().encode(texts)
        return np.ascontiguousarray(vecs, dtype=np.float32)

    def embed_one(self, text: str) -> "np.ndarray":
        import numpy as np

        with self._lock:
            hit = self._cache.get(text)
            if hit is not None:
                self._cache.move_to_end(text)
                return hit
            vec = np.ascontiguousarray(self._load().encode([text])[0], dtype=np.float32)
            vec.setflags(write=False)
            self._cache[text] = vec
            if len(self._cache) > _QUERY_CACHE:
                self._cache.popitem(last=False)
            return vec

    def warm_up(self) -> None:
        self.embed_one("warm up")


def load_embedder(settings: Settings, registry: ModelRegistry) -> SentenceEmbedder:
    """The embedder named in settings.memory.embedder, from the model registry."""
    name = settings.memory.embedder
    try:
        folder = registry.path(name)
    except ModelMissingError:
        raise
    except TutorError:
        raise
    return SentenceEmbedder(name, folder)
