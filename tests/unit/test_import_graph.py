"""The import graph of tutor_app has no cycles, keeps the layer table, and no module is
over 500 lines.

Every import statement counts: module level, inside functions and under
`if TYPE_CHECKING:`. Hiding an import in a function does not break a cycle or a layer; it
only delays it, so the lower module still knows the upper one.

The layer table (LAYERS below) is the one in docs/DESIGN-NOTES.md, "The shape of the
code": a test checks that the two say the same.
"""
from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "tutor_app"
DESIGN_NOTES = PACKAGE_DIR.parent / "docs" / "DESIGN-NOTES.md"
# Past ~500 lines a module usually holds two concepts: a note, not a cap (a hard cap made
# code squeeze to fit). Past CEILING_LINES it is surely two: that fails.
SOFT_LINES = 500
CEILING_LINES = 1000


def module_files(package_dir: Path) -> dict[str, Path]:
    """Dotted module name -> file, for every .py file under the package."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = path.relative_to(package_dir.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


def _known(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of `name` that is one of our modules (None: not ours)."""
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in modules:
            return candidate
        parts.pop()
    return None


def _base(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a `from ... import` names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if path.name != "__init__.py":
        package = package[:-1]  # a plain module's package is its parent
    package = package[: len(package) - (node.level - 1)]
    return ".".join(package + ([node.module] if node.module else []))


def imports_of(module: str, path: Path, modules: dict[str, Path]) -> set[str]:
    """Our modules that `module` imports anywhere in its file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    targets: set[str] = set()
    for node in ast.walk(tree):  # walk: function bodies and TYPE_CHECKING blocks too
        if isinstance(node, ast.Import):
            for alias in node.names:
                targets.add(_known(alias.name, modules) or "")
        elif isinstance(node, ast.ImportFrom):
            base = _base(module, path, node)
            for alias in node.names:
                # `from pkg import name`: the submodule pkg.name if it is one, else pkg
                full = f"{base}.{alias.name}" if base else alias.name
                targets.add(full if full in modules else (_known(base, modules) or ""))
    targets.discard("")
    return targets


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    modules = module_files(package_dir)
    return {name: imports_of(name, path, modules) for name, path in modules.items()}


def strongly_connected(graph: dict[str, set[str]]) -> list[list[str]]:
    """Tarjan's algorithm, iterative (no recursion limit on deep chains)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    counter = 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                components.append(sorted(component))
    return components


def _one_cycle(graph: dict[str, set[str]], members: list[str]) -> list[str]:
    """A concrete path start -> ... -> start inside one component, for the message."""
    inside = set(members)
    start = members[0]
    paths = {start: [start]}
    queue = [start]
    while queue:  # breadth first: the shortest way back to start
        node = queue.pop(0)
        for child in sorted(graph[node] & inside):
            if child == start:
                return paths[node] + [start]
            if child not in paths:
                paths[child] = paths[node] + [child]
                queue.append(child)
    return members


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The modules of each cycle (components of > 1 module, and self-imports), sorted."""
    return [component for component in strongly_connected(graph)
            if len(component) > 1 or component[0] in graph[component[0]]]


def describe(graph: dict[str, set[str]], cycles: list[list[str]]) -> str:
    """One line per cycle: a concrete path, then every module caught in it."""
    return "\n".join(" -> ".join(_one_cycle(graph, members)) + f"  (modules: {', '.join(members)})"
                     for members in cycles)


def long_modules(package_dir: Path, limit: int = SOFT_LINES) -> list[str]:
    out = []
    for name, path in module_files(package_dir).items():
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            out.append(f"{name}: {lines} lines")
    return out


def test_tutor_app_has_no_import_cycles():
    graph = import_graph(PACKAGE_DIR)
    cycles = find_cycles(graph)
    assert not cycles, "import cycles in tutor_app:\n" + describe(graph, cycles)


def test_long_modules_are_noted_and_none_is_surely_two():
    noted = long_modules(PACKAGE_DIR)
    if noted:  # shown in pytest's summary: split at the seam when it is two concepts
        warnings.warn(f"modules over {SOFT_LINES} lines (two concepts?): " + "; ".join(noted), stacklevel=1)
    offenders = long_modules(PACKAGE_DIR, CEILING_LINES)
    assert not offenders, f"modules over {CEILING_LINES} lines:\n" + "\n".join(offenders)


def _write(root: Path, files: dict[str, str]) -> Path:
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root / "pkg"


def test_self_check_finds_hidden_cycles(tmp_path):
    """The check can fail: cycles through a function-level import, a TYPE_CHECKING
    import, a relative import and a self-import are all reported; a clean chain is not."""
    package = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/low.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from pkg.sub.high import Thing\n"
        ),
        "pkg/sub/high.py": "def f():\n    from . import low\n    return low\n",
        "pkg/a.py": "import os\nimport pkg.b\n",
        "pkg/b.py": "def g():\n    from pkg.c import helper\n",
        "pkg/c.py": "from .a import x\n",
        "pkg/selfish.py": "def h():\n    from pkg import selfish\n",
        "pkg/clean1.py": "from pkg.clean2 import y\nfrom pkg import sub\n",
        "pkg/clean2.py": "import json\n",
    })
    graph = import_graph(package)
    assert graph["pkg.sub.high"] == {"pkg.sub.low"}
    assert graph["pkg.clean1"] == {"pkg.clean2", "pkg.sub"}
    cycles = find_cycles(graph)
    assert sorted(cycles) == [["pkg.a", "pkg.b", "pkg.c"], ["pkg.selfish"], ["pkg.sub.high", "pkg.sub.low"]]
    message = describe(graph, cycles)
    assert "pkg.a -> pkg.b -> pkg.c -> pkg.a" in message
    assert "pkg.selfish -> pkg.selfish" in message


def test_self_check_finds_long_modules(tmp_path):
    package = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/short.py": "x = 1\n" * SOFT_LINES,
        "pkg/long.py": "x = 1\n" * (SOFT_LINES + 1),
    })
    assert long_modules(package) == [f"pkg.long: {SOFT_LINES + 1} lines"]


# --- Layers -------------------------------------------------------------------------
# Each layer of tutor_app and the other layers it may import (itself always). "base" is
# the package's own top-level foundation modules, which every layer may use.
_LIBRARIES = {"core", "base", "registry", "llm", "speech", "emotion", "memory", "practice"}
LAYERS: dict[str, set[str]] = {
    "core": set(),
    "base": {"core"},
    "registry": {"core", "base"},
    "llm": {"core", "base", "registry"},
    "speech": {"core", "base", "registry", "memory"},
    "emotion": {"core", "base"},
    "memory": {"core", "base", "registry"},
    "practice": {"core", "base", "memory"},
    "tutor/turn_memory": {"core", "base", "memory"},
    "tutor": _LIBRARIES | {"tutor/turn_memory"},
    "call": _LIBRARIES | {"tutor", "tutor/turn_memory"},
    "app": _LIBRARIES | {"tutor", "tutor/turn_memory", "call"},
    "ui": _LIBRARIES | {"tutor", "tutor/turn_memory", "call", "app"},
    "commands": _LIBRARIES | {"tutor", "tutor/turn_memory", "call", "app", "ui"},
    "bench": _LIBRARIES | {"tutor", "tutor/turn_memory", "call", "app", "ui", "commands"},
    "cli": {"base", "app", "commands"},
    "__main__": {"cli"},
}
BASE_MODULES = {"errors", "logs", "paths", "settings", "settings_check", "settings_store", "startup",
                "storage_errors"}
QT = {"PySide6", "shiboken6", "PyQt5", "PyQt6"}
QT_LAYER = "ui"  # the only layer that imports Qt


def layer_of(module: str) -> str:
    """The layer of a dotted module name under the package ('pkg.speech.vad' -> 'speech')."""
    parts = module.split(".")[1:]
    if not parts or parts[0] in BASE_MODULES:
        return "base"  # the package's __init__ (name, version) and the foundation modules
    if parts[:2] == ["tutor", "turn_memory"]:
        return "tutor/turn_memory"
    return parts[0]


def foreign_imports(path: Path) -> set[str]:
    """The top-level names of every absolute import of other packages in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module.split(".")[0])
    return names


def _may(layer: str, layers: dict[str, set[str]]) -> str:
    allowed = sorted(layers.get(layer, ()))
    return f"{layer} may import {', '.join(allowed) or 'nothing of ours'}"


def layer_violations(package_dir: Path, layers: dict[str, set[str]] = LAYERS,
                     qt_layer: str = QT_LAYER) -> list[str]:
    """'module -> imported module (rule)', one line per import the table does not allow,
    a module of a layer missing from the table, and Qt imported outside `qt_layer`."""
    modules = module_files(package_dir)
    graph = import_graph(package_dir)
    out = []
    for module in sorted(graph):
        layer = layer_of(module)
        if layer not in layers:
            out.append(f"{module} -> (layer '{layer}' is not in the table)")
            continue
        for target in sorted(graph[module]):
            other = layer_of(target)
            if other != layer and other not in layers[layer]:
                out.append(f"{module} -> {target} ({_may(layer, layers)})")
        if layer != qt_layer:
            for name in sorted(foreign_imports(modules[module]) & QT):
                out.append(f"{module} -> {name} (Qt only in {qt_layer})")
    return out


def design_notes_layers(text: str) -> dict[str, set[str]]:
    """The table under '| package | holds | may import |' in DESIGN-NOTES: rows like
    '| `speech/` | holds | core, base, registry |' -> {'speech': {...}}. The layer is the
    first backticked name of the first cell ('/' or '.py' dropped), or 'base' for the row
    that starts so; 'nothing of ours' is the empty set; (notes) are ignored."""
    table: dict[str, set[str]] = {}
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| package | holds | may import |"))
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        first, _holds, allowed = (c.strip() for c in line.strip().strip("|").split("|"))
        layer = "base" if first.startswith("base") else first.split("`")[1].removesuffix(".py").strip("/")
        allowed = re.sub(r"\([^)]*\)", "", allowed)
        table[layer] = set() if "nothing" in allowed else {a.strip() for a in allowed.split(",") if a.strip()}
    return table


def test_layers_follow_the_table():
    offenders = layer_violations(PACKAGE_DIR)
    assert not offenders, "imports across layers that docs/DESIGN-NOTES.md does not allow:\n" + "\n".join(offenders)


def test_design_notes_table_is_the_tested_one():
    assert design_notes_layers(DESIGN_NOTES.read_text(encoding="utf-8")) == LAYERS


def test_self_check_finds_layer_violations(tmp_path):
    """The check can fail: an import up the table (even a function-level or TYPE_CHECKING
    one), Qt outside ui, and a layer the table does not know; allowed imports pass."""
    package = _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/errors.py": "",
        "pkg/core/__init__.py": "",
        "pkg/core/types.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.speech.vad import V\n",
        "pkg/speech/__init__.py": "",
        "pkg/speech/vad.py": "from pkg.core import types\nfrom pkg.errors import E\ndef f():\n    from pkg.tutor import t\n",
        "pkg/tutor/__init__.py": "",
        "pkg/tutor/t.py": "from pkg.speech.vad import V\nimport PySide6.QtCore\n",
        "pkg/ui/__init__.py": "",
        "pkg/ui/w.py": "from PySide6.QtWidgets import QWidget\nfrom pkg.tutor import t\n",
        "pkg/newthing/__init__.py": "",
    })
    layers = {"core": set(), "base": {"core"}, "speech": {"core", "base"}, "tutor": {"core", "base", "speech"},
              "ui": {"core", "base", "speech", "tutor"}}
    assert layer_violations(package, layers) == [
        "pkg.core.types -> pkg.speech.vad (core may import nothing of ours)",
        "pkg.newthing -> (layer 'newthing' is not in the table)",
        "pkg.speech.vad -> pkg.tutor.t (speech may import base, core)",
        "pkg.tutor.t -> PySide6 (Qt only in ui)",
    ]


def test_self_check_reads_the_design_notes_table():
    text = ("## Shape\n\n| package | holds | may import |\n| --- | --- | --- |\n"
            "| `core/` | values | nothing of ours |\n"
            "| base: `errors.py`, `paths.py` | foundations | core |\n"
            "| `speech/` | STT, TTS | core, base, memory (bias.py: names from the profile) |\n"
            "| `tutor/turn_memory/` | per-turn memory | memory, core |\n"
            "| `app.py` | the composition root | tutor |\n"
            "\n| `other` | table | here |\n")
    assert design_notes_layers(text) == {"core": set(), "base": {"core"}, "speech": {"core", "base", "memory"},
                                         "tutor/turn_memory": {"memory", "core"}, "app": {"tutor"}}
