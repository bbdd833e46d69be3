"""Models are verified when loaded: a damaged file is refused (or its pip package copy
used), and the verification is remembered so an unchanged model is not hashed again."""
from __future__ import annotations

import json
import os

import pytest

from tests.unit.test_registry import PAYLOAD, _fake_package, _manifest
from tutor_app.errors import ModelMissingError
from tutor_app.registry.install import install
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.registry.verify import CACHE_FILE, HashCache


@pytest.fixture
def site(tmp_path, monkeypatch):
    _fake_package(tmp_path, monkeypatch)
    return tmp_path / "site" / "fake_model_pkg" / "data"


def _registry(tmp_path) -> ModelRegistry:
    return ModelRegistry.load(tmp_path / "models", _manifest(tmp_path), cache_dir=tmp_path / "cache")


def _damage(path, keep_size: bool = False) -> None:
    """Overwrite the first KB, as a failed write or a bad disk would."""
    blob = bytearray(path.read_bytes())
    blob[:1024] = b"\0" * 1024
    if not keep_size:
        blob += b"junk"
    path.write_bytes(bytes(blob))


def test_second_load_uses_the_cache_not_the_file(tmp_path, site):
    first = _registry(tmp_path)
    assert first.path("fake-model") == site
    assert first.hashes.hashed == 2  # weights.bin and config.json, once
    cached = json.loads((tmp_path / "cache" / CACHE_FILE).read_text())
    assert str(site / "weights.bin") in cached["files"]
    second = _registry(tmp_path)  # the next start of the app
    assert second.path("fake-model") == site
    assert second.hashes.hashed == 0


def test_a_changed_file_is_hashed_again_and_refused(tmp_path, site):
    _registry(tmp_path).path("fake-model")  # remembered as good
    _damage(site / "weights.bin", keep_size=True)  # same size, new mtime
    reg = _registry(tmp_path)
    with pytest.raises(ModelMissingError) as err:
        reg.path("fake-model")
    message = str(err.value)
    assert "\n" not in message and "model 'fake-model' is corrupt" in message
    assert "weights.bin has the wrong checksum" in message
    # The package copy itself is damaged: reinstalling the package is the repair.
    assert "pip install --force-reinstall --no-deps fake-model-pkg==1.0" in message
    assert reg.hashes.hashed == 1  # only the changed file was read


def test_damaged_install_falls_back_to_the_package_copy(tmp_path, site, caplog):
    installed = install(_registry(tmp_path), "fake-model").path
    assert _registry(tmp_path).path("fake-model") == installed
    _damage(installed / "weights.bin")
    reg = _registry(tmp_path)
    assert reg.status(reg.get("fake-model")).state == "corrupt"
    with caplog.at_level("WARNING"):
        assert reg.path("fake-model") == site
    assert "tutor-app models install fake-model" in caplog.text


def test_damaged_install_without_a_package_copy_is_refused(tmp_path, site, monkeypatch):
    installed = install(_registry(tmp_path), "fake-model").path
    _damage(installed / "weights.bin")
    (site / "weights.bin").unlink()  # no good copy anywhere
    with pytest.raises(ModelMissingError,
                       match=r"^model 'fake-model' is corrupt \(weights.bin has the wrong checksum\): "
                             r"run `tutor-app models install fake-model`$"):
        _registry(tmp_path).path("fake-model")


def test_install_remembers_the_hashes_it_computed(tmp_path, site):
    install(_registry(tmp_path), "fake-model")
    reg = _registry(tmp_path)
    assert reg.path("fake-model") == tmp_path / "models" / "fake-model"
    assert reg.hashes.hashed == 0


def test_rehash_finds_damage_that_kept_the_mtime(tmp_path, site):
    _registry(tmp_path).path("fake-model")
    target = site / "weights.bin"
    st = target.stat()
    _damage(target, keep_size=True)
    os.utime(target, ns=(st.st_atime_ns, st.st_mtime_ns))  # e.g. restored from a backup
    reg = _registry(tmp_path)
    assert reg.status(reg.get("fake-model")).state == "in-package"  # trusted by the cache
    assert reg.status(reg.get("fake-model"), rehash=True).state == "corrupt"


def test_an_unreadable_cache_only_costs_a_rehash(tmp_path, site):
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / CACHE_FILE).write_text("{not json")
    reg = _registry(tmp_path)
    assert reg.path("fake-model") == site and reg.hashes.hashed == 2
    assert json.loads((tmp_path / "cache" / CACHE_FILE).read_text())["version"] == 1


def test_record_that_disagrees_with_the_manifest_is_corrupt(tmp_path, site):
    installed = install(_registry(tmp_path), "fake-model").path
    record = json.loads((installed / ".installed.json").read_text())
    record["files"]["weights.bin"] = "0" * 64
    (installed / ".installed.json").write_text(json.dumps(record))
    reg = _registry(tmp_path)
    status = reg.status(reg.get("fake-model"))
    assert status.state == "corrupt" and "weights.bin" in status.detail
    assert reg.path("fake-model") == site  # the good package copy


def test_memory_only_cache(tmp_path):
    target = tmp_path / "f.bin"
    target.write_bytes(PAYLOAD)
    cache = HashCache(None)
    assert cache.sha256(target) == cache.sha256(target)
    assert cache.hashed == 1
    cache.save()  # nothing to write to: no error


def test_a_corrupt_emotion_model_is_not_loaded_from_its_folder(tmp_path, site):
    """The transformers emotion scorer looks in the models folder when the registry has
    no answer: a corrupt model must stop there, not be loaded from that same folder."""
    from tutor_app.emotion.scorer import transformers_model_dir
    from tutor_app.errors import ModelCorruptError

    installed = install(_registry(tmp_path), "fake-model").path
    (installed / "config.json").write_text('{"dim": 5}')
    (site / "config.json").unlink()
    with pytest.raises(ModelCorruptError, match="models install fake-model"):
        transformers_model_dir("fake-model", None, _registry(tmp_path))
