"""The learner's files are owner-only; an empty --profile / --data-dir is a usage error."""
from __future__ import annotations

import os
import stat

import pytest

from tutor_app.cli import main
from tutor_app.paths import AppPaths, library_env, private_files, tighten_tree

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes")


def _mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


@pytest.fixture(autouse=True)
def restore_umask(tmp_path, monkeypatch):
    """private_files changes process-wide state: put the umask and env back afterwards."""
    for key in library_env():
        monkeypatch.delenv(key, raising=False)
    old = os.umask(0o022)
    yield
    os.umask(old)


@posix_only
def test_an_old_world_readable_data_dir_is_tightened(tmp_path):
    root = tmp_path / "data"
    (root / "logs").mkdir(parents=True)
    (root / "memory.lancedb" / "x.lance").mkdir(parents=True)
    (root / "logs" / "tutor-app.log").write_text("log")
    (root / "memory.lancedb" / "x.lance" / "0.txn").write_text("rows")
    (root / "link").symlink_to(tmp_path / "elsewhere.txt")
    (tmp_path / "elsewhere.txt").write_text("not ours")
    os.chmod(tmp_path / "elsewhere.txt", 0o644)
    private_files(AppPaths.resolve(root))
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        assert _mode(path) == (0o700 if path.is_dir() else 0o600), path
    assert _mode(tmp_path / "elsewhere.txt") == 0o644  # a symlink's target is left alone
    # New files from now on are private too.
    (root / "export.jsonl").write_text("{}")
    assert _mode(root / "export.jsonl") == 0o600
    assert tighten_tree(root) == 0  # already private: no walk


@posix_only
def test_a_shared_folder_named_as_data_dir_is_not_walked(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "someone-elses.txt").write_text("x")
    os.chmod(shared / "someone-elses.txt", 0o644)
    os.chmod(shared, 0o1777)  # like /tmp
    private_files(AppPaths.resolve(shared))
    assert _mode(shared) == 0o1777 and _mode(shared / "someone-elses.txt") == 0o644


def test_onnxruntime_telemetry_is_switched_off_at_start(tmp_path):
    private_files(AppPaths.resolve(tmp_path / "data"))
    assert os.environ["ORT_DISABLE_TELEMETRY"] == "1"


@pytest.mark.parametrize("argv, flag", [
    (["--profile", "", "memory", "list"], "--profile"),
    (["memory", "list", "--profile", "   "], "--profile"),
    (["--data-dir", "", "memory", "list"], "--data-dir"),
    (["memory", "list", "--data-dir", " "], "--data-dir"),
])
def test_blank_profile_or_data_dir_is_a_usage_error(argv, flag, data_dir, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"tutor-app: {flag} is empty")
    assert not data_dir.exists()  # refused before anything was created


@posix_only
def test_installed_models_stay_readable_for_a_bundled_build(tmp_path, monkeypatch):
    """Models are not private data: `make setup` installs them into models/, which a
    build bundles for every user of the machine."""
    from tests.unit.test_registry import _fake_package, _manifest
    from tutor_app.registry.install import install
    from tutor_app.registry.manifest import ModelRegistry

    _fake_package(tmp_path, monkeypatch)
    private_files(AppPaths.resolve(tmp_path / "data"))  # umask 077 from here on
    models = tmp_path / "models"
    target = install(ModelRegistry.load(models, _manifest(tmp_path)), "fake-model").path
    assert _mode(models) == 0o755 and _mode(target) == 0o755
    assert _mode(target / "weights.bin") == 0o644 and _mode(target / ".installed.json") == 0o644
