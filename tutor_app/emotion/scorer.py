"""Choose and load the emotion scorer (the `EmotionScorer` protocol).

settings.emotion.model == "builtin" (default): the MiniLM model shipped in assets/emotion/.
Any other value names a transformers GoEmotions classifier folder in the models dir
(e.g. "roberta-base-go_emotions"); when that folder is not installed, the built-in
scorer is used instead and a warning is logged, so the app always has emotions offline.
"""
from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from tutor_app.emotion.builtin import BuiltinScorer
from tutor_app.emotion.common import ProbabilityScorer
from tutor_app.errors import ModelCorruptError

log = logging.getLogger(__name__)

BUILTIN = "builtin"
BUILTIN_NAMES = {BUILTIN, "goemotions-minilm"}  # the manifest's name for the shipped model


def transformers_model_dir(name: str, settings: Any, registry: Any = None) -> Path | None:
    """The installed folder for `name`, or None."""
    candidates: list[Path] = []
    if registry is not None and hasattr(registry, "path"):
        try:
            found = registry.path(name)
            if found:
                candidates.append(Path(found))
        except ModelCorruptError:
            raise  # its folder below is the damaged one: never load it
        except Exception as exc:  # noqa: BLE001 - unknown to the registry: try the folder
            log.debug("registry does not know %s: %s", name, exc)
    models_dir = getattr(getattr(settings, "paths", None), "models_dir", None)
    if models_dir is not None:
        candidates.append(Path(models_dir) / name)
    candidates.append(Path(name).expanduser())
    for c in candidates:
        if (c / "config.json").is_file():
            return c
    return None


def load_scorer(settings: Any, registry: Any = None) -> ProbabilityScorer:
    name = (getattr(getattr(settings, "emotion", None), "model", None) or BUILTIN).strip()
    if name not in BUILTIN_NAMES:
        folder = transformers_model_dir(name, settings, registry)
        if folder is not None:
            from tutor_app.emotion.hf import TransformersScorer, TransformersUnavailable

            log.info("emotion: transformers model %s", folder)
            try:
                return TransformersScorer.load(folder)
            except TransformersUnavailable as exc:  # the installed app has no torch
                log.warning("%s; using the built-in scorer", exc)
                return BuiltinScorer.load(registry=registry)
        log.warning("emotion model %r is not installed; using the built-in scorer", name)
    return BuiltinScorer.load(registry=registry)


def scorer_for(app: Any) -> ProbabilityScorer:
    """`app.emotion`, or the scorer without a model registry while that module is absent
    (the built-in scorer finds its base encoder through the pip package then)."""
    try:
        return app.emotion
    except ModuleNotFoundError as exc:
        if "tutor_app.registry" not in str(exc):
            raise
        log.debug("no model registry yet (%s); loading the scorer without it", exc)
        return load_scorer(app.settings, None)


def registry_of(app: Any) -> Any:
    try:
        return app.registry
    except ModuleNotFoundError:
        return None
