"""Every broad `except` (bare, Exception, BaseException) in tutor_app says why, in a comment
on its line, or re-raises. A silent broad except turned "could not check" into "nothing to
erase" once; a reason beside each one lets a reader (and review) see what it swallows.
"""
from __future__ import annotations

import ast
import io
import tokenize
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[2] / "tutor_app"
BROAD = {"Exception", "BaseException"}


def _is_broad(handler: ast.ExceptHandler) -> bool:
    kind = handler.type
    if kind is None:
        return True
    names = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return any(isinstance(n, ast.Name) and n.id in BROAD for n in names)


def _reraises(handler: ast.ExceptHandler) -> bool:
    return any(isinstance(node, ast.Raise) and node.exc is None for node in ast.walk(handler))


def unexplained_excepts(source: str, name: str) -> list[str]:
    """'name:line' for each broad except with no comment on its line that does not re-raise."""
    commented = {tok.start[0] for tok in tokenize.generate_tokens(io.StringIO(source).readline)
                 if tok.type == tokenize.COMMENT}
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ExceptHandler) and _is_broad(node) and not _reraises(node):
            if node.lineno not in commented:
                out.append(f"{name}:{node.lineno}")
    return out


def test_every_broad_except_says_why():
    offenders = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        offenders += unexplained_excepts(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE_DIR.parent)))
    assert not offenders, "broad excepts without a reason on their line:\n" + "\n".join(offenders)


def test_self_check_finds_a_silent_broad_except():
    source = (
        "try:\n    x = 1\nexcept Exception:\n    pass\n"
        "try:\n    x = 2\nexcept Exception:  # a reason\n    pass\n"
        "try:\n    x = 3\nexcept BaseException:\n    raise\n"
        "try:\n    x = 4\nexcept (ValueError, Exception):\n    x = 5\n"
        "try:\n    x = 6\nexcept ValueError:\n    pass\n"
    )
    assert unexplained_excepts(source, "m") == ["m:3", "m:15"]
