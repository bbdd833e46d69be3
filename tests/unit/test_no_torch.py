"""The app runs without torch (issue #15, a lighter app): its modules never import torch,
transformers or sentence-transformers when imported, the base dependencies do not pull
them in, and every library the runtime imports comes with the base dependencies."""
from __future__ import annotations

import ast
import importlib.metadata as md
import os
import re
import subprocess
import sys
from pathlib import Path

from packaging.requirements import Requirement

from tests.no_torch import HIDDEN

ROOT = Path(__file__).resolve().parents[2]
TORCH_SIDE = {"torch", "transformers", "sentence-transformers"}
# Modules that import the PyTorch side on purpose, behind a clear "not installed" message
# or only for a developer: training, the transformers baseline of `bench llm`.
OPTIONAL_USERS = {"emotion/train.py", "emotion/hf.py", "memory/embedder.py", "registry/convert.py",
                  "bench/llm_transformers.py", "bench/memory.py", "core/cuda.py"}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _closure(requirements: list[str], extra: str | None = None) -> set[str]:
    """Installed distributions reached from `requirements` (markers evaluated, extras
    followed), by normalised name."""
    seen: set[str] = set()
    todo = [(r, extra) for r in requirements]
    while todo:
        text, ex = todo.pop()
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": ex or ""}):
            continue
        name = _norm(req.name)
        try:
            deps = md.requires(req.name) or []
        except md.PackageNotFoundError:
            continue  # not for this platform
        if name in seen and not req.extras:
            continue
        seen.add(name)
        todo += [(d, None) for d in deps]
        todo += [(d, e) for e in req.extras for d in deps]
    return seen


def _own_requirements() -> list[str]:
    return md.requires("tutor-app") or []


def test_importing_the_cli_and_every_module_incl_the_gui_imports_no_torch():
    """Every module of the package (the GUI's too): torch is imported only inside the
    functions that need it, so PyInstaller can leave it out and the app starts without it."""
    code = (
        "import importlib, pkgutil, sys\n"
        "import tutor_app, tutor_app.cli\n"
        "for m in pkgutil.walk_packages(tutor_app.__path__, 'tutor_app.'):\n"
        "    if not m.name.endswith('__main__'):  # that one would run the app\n"
        "        importlib.import_module(m.name)\n"
        f"print(','.join(m for m in {HIDDEN!r} if m in sys.modules))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"}, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == ""


def test_base_dependencies_do_not_pull_torch_and_the_hf_extra_does():
    base = _closure([r for r in _own_requirements() if "extra ==" not in r])
    assert not base & TORCH_SIDE, sorted(base & TORCH_SIDE)
    hf = {_norm(Requirement(r).name) for r in _own_requirements() if 'extra == "hf"' in r}
    assert TORCH_SIDE <= hf


def _third_party_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {a.name.partition(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.partition(".")[0])
    return {n for n in names if n not in sys.stdlib_module_names and n not in ("tutor_app", "tests")}


def test_every_library_the_runtime_imports_is_a_base_dependency():
    """A library that only came with torch's side (scipy and threadpoolctl came with
    sentence-transformers) must be a dependency of its own, or the app breaks without it."""
    base = _closure([r for r in _own_requirements() if "extra ==" not in r])
    providers = md.packages_distributions()
    missing = {}
    package = ROOT / "tutor_app"
    for path in package.rglob("*.py"):
        rel = path.relative_to(package).as_posix()
        if rel in OPTIONAL_USERS:
            continue
        for module in _third_party_imports(path):
            dists = {_norm(d) for d in providers.get(module, [])}
            if not dists & base:
                missing.setdefault(module, []).append(rel)
    # Windows/macOS-only modules (not installed here) name no installed distribution.
    missing = {m: f for m, f in missing.items() if providers.get(m)}
    assert not missing, f"imported by the runtime but not a base dependency: {missing}"
