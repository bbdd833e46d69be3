"""The import graph of tutor_app has no cycles, and no module is over 500 lines.

Every import statement counts: module level, inside functions and under
`if TYPE_CHECKING:`. Hiding an import in a function does not break a cycle; it only
delays it, so the lower module still knows the upper one.
"""
from __future__ import annotations

import ast
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "tutor_app"
MAX_LINES = 500  # past ~500 a module usually holds two concepts: split at the seam, never squeeze


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


def long_modules(package_dir: Path, limit: int = MAX_LINES) -> list[str]:
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


def test_no_module_over_400_lines():
    offenders = long_modules(PACKAGE_DIR)
    assert not offenders, f"modules over {MAX_LINES} lines:\n" + "\n".join(offenders)


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
        "pkg/short.py": "x = 1\n" * MAX_LINES,
        "pkg/long.py": "x = 1\n" * (MAX_LINES + 1),
    })
    assert long_modules(package) == [f"pkg.long: {MAX_LINES + 1} lines"]
