"""Run the app as the installed one does: torch, transformers and sentence-transformers
not installed. A sitecustomize.py first on PYTHONPATH swaps the path finder for one that
does not see them, so `import torch` raises ModuleNotFoundError and find_spec("torch")
is None (libraries such as lancedb probe with find_spec), exactly as on a machine
without them; everything else imports from the same venv."""
from __future__ import annotations

import os
from pathlib import Path

HIDDEN = ("torch", "transformers", "sentence_transformers")

SITECUSTOMIZE = f'''\
import sys
from importlib.machinery import PathFinder

HIDDEN = {HIDDEN!r}


class _WithoutTorch(PathFinder):
    @classmethod
    def find_spec(cls, name, path=None, target=None):
        if name.partition(".")[0] in HIDDEN:
            return None
        return PathFinder.find_spec(name, path, target)


sys.meta_path[:] = [_WithoutTorch if f is PathFinder else f for f in sys.meta_path]
'''


def env_without_torch(folder: Path, base: dict[str, str] | None = None) -> dict[str, str]:
    """The environment for a sub-process that cannot import the HIDDEN packages."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = dict(os.environ if base is None else base)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), env.get("PYTHONPATH", "")) if p)
    return env
