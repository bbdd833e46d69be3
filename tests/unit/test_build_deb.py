"""packaging/linux/build_deb.py: a fake PyInstaller bundle becomes an installable .deb."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import missing_prerequisite

ROOT = Path(__file__).resolve().parents[2]
BUILDER = ROOT / "packaging" / "linux" / "build_deb.py"


@pytest.fixture
def dpkg_deb() -> None:
    """The .deb is built on Debian: without dpkg-deb CI fails (never a silent skip)."""
    if shutil.which("dpkg-deb") is None:
        missing_prerequisite("dpkg-deb not installed (Debian/Ubuntu only)")


needs_dpkg = pytest.mark.usefixtures("dpkg_deb")


def fake_bundle(folder: Path, with_executable: bool = True) -> Path:
    (folder / "_internal" / "models").mkdir(parents=True)
    (folder / "_internal" / "data.txt").write_text("bundled data\n")
    (folder / "_internal" / "models" / "models.toml").write_text("# manifest\n")
    if with_executable:
        exe = folder / "tutor-app"
        exe.write_text("#!/bin/sh\necho \"tutor-app 9.9.9 $*\"\n")
        exe.chmod(0o700)  # restrictive on purpose: the package must still ship 0755
    return folder


def run_builder(bundle: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(BUILDER), "--bundle", str(bundle), "--version", "1.2.3",
         "--out", str(out), "--compression", "gzip", *extra],
        check=False, capture_output=True, text=True)


def control_fields(deb: Path) -> dict[str, str]:
    out = subprocess.run(["dpkg-deb", "--field", str(deb)], capture_output=True, text=True, check=True)
    fields = {}
    for line in out.stdout.splitlines():
        if line and not line.startswith(" "):
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    if shutil.which("dpkg-deb") is None:
        missing_prerequisite("dpkg-deb not installed (Debian/Ubuntu only)")
    tmp = tmp_path_factory.mktemp("deb")
    result = run_builder(fake_bundle(tmp / "bundle"), tmp / "out", "--arch", "amd64")
    assert result.returncode == 0, result.stderr
    deb = Path(result.stdout.strip().splitlines()[-1])
    extracted = tmp / "x"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(extracted)], check=True)
    return deb, extracted


@needs_dpkg
def test_deb_name_and_control_fields(built):
    deb, _ = built
    assert deb.name == "tutor-app_1.2.3_amd64.deb"
    assert deb.is_file()
    fields = control_fields(deb)
    assert fields["Package"] == "tutor-app"
    assert fields["Version"] == "1.2.3"
    assert fields["Architecture"] == "amd64"
    depends = [d.strip() for d in fields["Depends"].split(",")]
    # The fake bundle carries no Qt libraries, so the xcb ones come from the system.
    assert {"libportaudio2", "libgl1", "libxcb-cursor0", "libxkbcommon-x11-0"} <= set(depends)
    assert "fonts-noto-cjk" in depends  # Korean text is not drawn as empty boxes
    assert fields["Section"] == "education"
    assert int(fields["Installed-Size"]) > 0
    info = subprocess.run(["dpkg-deb", "--info", str(deb)], capture_output=True, text=True, check=True).stdout
    assert "postinst" in info and "postrm" in info


@needs_dpkg
def test_files_at_their_paths_owned_by_root(built):
    deb, x = built
    for rel in ("opt/tutor-app/tutor-app", "opt/tutor-app/_internal/data.txt",
                "usr/share/applications/tutor-app.desktop",
                "usr/share/icons/hicolor/scalable/apps/tutor-app.svg",
                "usr/share/doc/tutor-app/copyright"):
        assert (x / rel).is_file(), rel
    assert "models.toml" in (x / "usr/share/doc/tutor-app/copyright").read_text()
    listing = subprocess.run(["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True,
                             check=True).stdout.splitlines()
    assert listing and all(" root/root " in line for line in listing)


@needs_dpkg
def test_usr_bin_wrapper_runs_the_bundled_executable(built, tmp_path):
    _, x = built
    wrapper = x / "usr" / "bin" / "tutor-app"
    assert wrapper.stat().st_mode & 0o777 == 0o755
    text = wrapper.read_text()
    assert 'exec /opt/tutor-app/tutor-app "$@"' in text
    assert (x / "opt/tutor-app/tutor-app").is_file()
    # Run it against the extracted tree, not this machine's /opt.
    local = tmp_path / "tutor-app"
    local.write_text(text.replace("/opt/tutor-app", str(x / "opt" / "tutor-app")))
    out = subprocess.run(["sh", str(local), "gui", "--debug"], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "tutor-app 9.9.9 gui --debug"  # arguments pass through


@needs_dpkg
def test_file_modes(built):
    _, x = built
    assert (x / "opt/tutor-app/tutor-app").stat().st_mode & 0o777 == 0o755
    assert (x / "opt/tutor-app/_internal/data.txt").stat().st_mode & 0o777 == 0o644
    assert (x / "usr/share/applications/tutor-app.desktop").stat().st_mode & 0o777 == 0o644
    assert (x / "opt/tutor-app/_internal").stat().st_mode & 0o777 == 0o755
    assert (x / "usr/bin/tutor-app").stat().st_mode & 0o777 == 0o755


@needs_dpkg
def test_desktop_entry(built):
    _, x = built
    desktop = x / "usr/share/applications/tutor-app.desktop"
    lines = desktop.read_text().splitlines()
    assert lines[0] == "[Desktop Entry]"
    assert "Type=Application" in lines
    assert "Exec=tutor-app gui" in lines
    assert "Icon=tutor-app" in lines
    assert any(line.startswith("Categories=") and "Education;" in line for line in lines)
    if shutil.which("desktop-file-validate"):
        result = subprocess.run(["desktop-file-validate", str(desktop)], check=False,
                                capture_output=True, text=True)
        assert result.returncode == 0, result.stdout + result.stderr


@needs_dpkg
def test_qt_libs_carried_by_the_bundle_are_not_dependencies(tmp_path):
    bundle = fake_bundle(tmp_path / "bundle")
    (bundle / "_internal" / "libxcb-cursor.so.0").write_bytes(b"")
    result = run_builder(bundle, tmp_path / "out")
    assert result.returncode == 0, result.stderr
    depends = control_fields(Path(result.stdout.strip()))["Depends"]
    assert "libxcb-cursor0" not in depends
    assert "libxkbcommon-x11-0" in depends and "libportaudio2" in depends


@pytest.mark.parametrize("case", ["no executable", "not executable", "no folder"])
def test_bad_bundle_fails_with_one_line_and_no_deb(tmp_path, case):
    bundle = tmp_path / "bundle"
    if case == "no executable":
        fake_bundle(bundle, with_executable=False)
    elif case == "not executable":
        fake_bundle(bundle).joinpath("tutor-app").chmod(0o644)
    out = tmp_path / "out"
    result = run_builder(bundle, out)
    assert result.returncode == 1
    message = result.stderr.strip().splitlines()
    assert len(message) == 1 and message[0].startswith("build_deb: ")
    assert "bundle" in message[0]
    assert not list(tmp_path.rglob("*.deb"))
    assert not out.exists() or not any(out.iterdir())


def test_bad_version_is_refused(tmp_path):
    result = run_builder(fake_bundle(tmp_path / "bundle"), tmp_path / "out", "--version", "v1")
    assert result.returncode == 1
    assert "not a Debian version" in result.stderr
    assert not list(tmp_path.rglob("*.deb"))
