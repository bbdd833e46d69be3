"""What a fresh setup installs is what the tests ran: every version in constraints.txt is
the one installed here, every direct dependency of pyproject.toml is pinned there, and no
pin admits a release known to break the app (the refcount tests show why each is bad)."""
from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KNOWN_BAD = {"pyside6-essentials": {"6.12.0"}, "shiboken6": {"6.12.0"}}  # none_dealloc within minutes


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def constraints() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt pins exactly, not {line!r}"
            pins[canonical(name)] = version
    return pins


def direct_requirements() -> set[str]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    lines = list(project["dependencies"])
    for extra in ("test", "bench", "hf"):
        lines += project["optional-dependencies"][extra]
    return {canonical(re.split(r"[\[<>=!~; ]", line, maxsplit=1)[0]) for line in lines}


def test_every_installed_version_is_the_pinned_one():
    wrong = {}
    for name, version in constraints().items():
        try:
            installed = metadata.version(name)
        except metadata.PackageNotFoundError:
            installed = "missing"
        if installed != version:
            wrong[name] = f"{installed} installed, {version} pinned"
    assert not wrong, f"the venv is not what constraints.txt says (make setup, or make lock after an upgrade): {wrong}"


def test_every_direct_dependency_is_pinned():
    pins = constraints()
    unpinned = sorted(name for name in direct_requirements() if name not in pins and name != "torch")
    assert not unpinned, f"pyproject.toml names packages constraints.txt does not pin: {unpinned}"


def test_no_pin_admits_a_known_bad_release():
    pins = constraints()
    for name, bad in KNOWN_BAD.items():
        assert pins.get(name) not in bad, f"{name} {pins.get(name)} is known bad"
