#!/usr/bin/env python3
"""Build tutor-app_<version>_<arch>.deb from the PyInstaller one-folder bundle.

    python3 packaging/linux/build_deb.py --bundle dist/tutor-app --version 0.1.0 --out dist

Layout: the bundle in /opt/tutor-app, /usr/bin/tutor-app (a wrapper that runs
/opt/tutor-app/tutor-app), the menu entry and icon in /usr/share, a short copyright file. Standard library only, so it
runs with any python3 on the build machine; needs dpkg-deb (dpkg >= 1.19).
Exit codes: 0 ok (prints the .deb path), 1 error with one line on stderr.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

PACKAGE = "tutor-app"
EXECUTABLE = "tutor-app"
INSTALL_DIR = Path("opt") / PACKAGE
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
MAINTAINER = "Tutor developers <tutor@localhost>"

# Runtime needs the bundle does not carry (checked with ldd on the bundled PySide6
# platforms/libqxcb.so, PyInstaller 6):
# - libgl1, libegl1, libxcb1: PyInstaller deliberately leaves these out, they must match
#   the machine's graphics stack;
# - libportaudio2: the microphone and speaker; PyInstaller's sounddevice hook bundles the
#   build machine's copy, the dependency keeps it working when that copy is absent;
# - fontconfig-config: /etc/fonts/fonts.conf and a font (fonts-dejavu-core or another).
#   The bundle carries libfontconfig but no config or fonts; without them every label is
#   drawn as empty boxes ("Fontconfig error: Cannot load default config file"), seen on a
#   minimal bookworm by verify-deb.sh.
# - fonts-noto-cjk: Korean glyphs (a learner's Korean name or place); without a CJK font
#   they are empty boxes. The app falls back to it (ui/theme.py use_cjk_fallback).
DEPENDS = ("libportaudio2", "libgl1", "libegl1", "libxcb1", "fontconfig-config", "fonts-noto-cjk")
# Qt >= 6.5's xcb plugin needs these and plain desktops often lack libxcb-cursor0;
# PyInstaller bundles them only when the build machine has them, so depend on the ones
# the bundle does not carry.
QT_XCB_LIBS = {"libxcb-cursor.so.0": "libxcb-cursor0", "libxkbcommon-x11.so.0": "libxkbcommon-x11-0"}

SUMMARY = "private voice tutor for spoken English practice"
DESCRIPTION = """\
Tutor is a desktop app for practising spoken English with a voice tutor. Speech
recognition, the voice, the emotion model, memory and a small tutor model run offline
on this computer; Claude is used only when an API key is set. The app is
self-contained (no Python needed); start it from the applications menu or run
'tutor-app'."""

# Maintainer scripts: refresh the menu and icon caches so Tutor shows up at once; the
# tools are optional on minimal systems, so a missing or failing tool never fails dpkg.
CACHE_SCRIPT = """\
#!/bin/sh
set -e
if command -v update-desktop-database >/dev/null 2>&1; then
    update-desktop-database -q /usr/share/applications || true
fi
if command -v gtk-update-icon-cache >/dev/null 2>&1; then
    gtk-update-icon-cache -q -t -f /usr/share/icons/hicolor || true
fi
exit 0
"""

# Debian upstream versions start with a digit; PEP 440 versions of this project fit.
VERSION_RE = re.compile(r"^[0-9][A-Za-z0-9.+~-]*$")


class BuildError(Exception):
    """A problem the user can fix; reported as one line."""


@dataclass(frozen=True)
class DebSpec:
    bundle: Path
    version: str
    arch: str
    out_dir: Path
    desktop: Path
    icon: Path | None
    compression: str = "gzip"

    @property
    def deb_name(self) -> str:
        return f"{PACKAGE}_{self.version}_{self.arch}.deb"


def default_arch() -> str:
    try:
        out = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True, check=True)
        return out.stdout.strip() or "amd64"
    except (OSError, subprocess.CalledProcessError):
        return "amd64"


def default_icon() -> Path | None:
    # The project's icon wins; packaging/linux/ carries a fallback so the menu entry has one.
    for candidate in (ROOT / "assets" / "icons" / "tutor-app.svg", HERE / "tutor-app.svg"):
        if candidate.is_file():
            return candidate
    return None


def depends_for(bundle: Path) -> tuple[str, ...]:
    carried = {path.name for path in bundle.rglob("*.so*")}
    return DEPENDS + tuple(pkg for lib, pkg in QT_XCB_LIBS.items() if lib not in carried)


def check_inputs(spec: DebSpec) -> None:
    exe = spec.bundle / EXECUTABLE
    if not spec.bundle.is_dir():
        raise BuildError(f"bundle folder not found: {spec.bundle} (run 'make package' first)")
    if not exe.is_file() or not os.access(exe, os.X_OK):
        raise BuildError(f"{spec.bundle} is not a PyInstaller bundle: no executable '{EXECUTABLE}' in it")
    if not VERSION_RE.match(spec.version):
        raise BuildError(f"version {spec.version!r} is not a Debian version (must start with a digit)")
    if not spec.desktop.is_file():
        raise BuildError(f"desktop file not found: {spec.desktop}")
    if spec.icon is not None and not spec.icon.is_file():
        raise BuildError(f"icon not found: {spec.icon}")


def check_dpkg_deb() -> None:
    if shutil.which("dpkg-deb") is None:
        raise BuildError("dpkg-deb not found: install dpkg (Debian/Ubuntu) to build the .deb")
    help_text = subprocess.run(["dpkg-deb", "--help"], check=False, capture_output=True,
                               text=True).stdout
    if "--root-owner-group" not in help_text:
        raise BuildError("dpkg-deb is too old: --root-owner-group needs dpkg >= 1.19")


def control_text(spec: DebSpec, installed_kib: int, depends: tuple[str, ...]) -> str:
    body = "\n".join(" " + line if line.strip() else " ." for line in DESCRIPTION.splitlines())
    return (
        f"Package: {PACKAGE}\n"
        f"Version: {spec.version}\n"
        f"Architecture: {spec.arch}\n"
        f"Maintainer: {MAINTAINER}\n"
        f"Installed-Size: {installed_kib}\n"
        f"Depends: {', '.join(depends)}\n"
        "Section: education\n"
        "Priority: optional\n"
        f"Description: {SUMMARY}\n"
        f"{body}\n"
    )


def wrapper_text() -> str:
    """/usr/bin/tutor-app: runs the bundle (its bootloader finds _internal/ by itself).
    The bundled models under /opt are read-only: the app reads them from there and
    installs extra ones into the user's own models folder."""
    return f"#!/bin/sh\nexec /{INSTALL_DIR}/{EXECUTABLE} \"$@\"\n"


def copyright_text(models_manifest: str | None) -> str:
    where = (f"/{models_manifest}" if models_manifest
             else "models/models.toml in the source tree")
    return (
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
        "Upstream-Name: tutor-app\n"
        "\n"
        "Files: *\n"
        "Copyright: Tutor developers\n"
        "License: GPL-3+\n"
        " Tutor bundles piper-tts, which is GPL-3.0-or-later. On Debian systems the full\n"
        " text is in /usr/share/common-licenses/GPL-3.\n"
        " .\n"
        " The bundled Python libraries keep their own licences (their metadata is inside\n"
        f" /{INSTALL_DIR}). The offline models and their licences (MIT, Apache-2.0,\n"
        " CC BY 4.0 for the GoEmotions data) are listed in\n"
        f" {where}\n"
        " and shown by 'tutor-app models status'.\n"
    )


def installed_size_kib(root: Path) -> int:
    # Same estimate as dpkg-gencontrol: each file rounded up to a KiB, 1 per dir/link.
    total = 0
    for path in root.rglob("*"):
        if path.relative_to(root).parts[0] == "DEBIAN":
            continue
        if path.is_symlink() or path.is_dir():
            total += 1
        else:
            total += max(1, math.ceil(path.stat().st_size / 1024))
    return total


def normalise_modes(root: Path) -> None:
    # 0755 for dirs and anything executable, 0644 for the rest; the bundle may come from
    # a checkout with a restrictive umask or group-writable files, which dpkg would keep.
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        if path.is_dir() or os.stat(path).st_mode & 0o111:
            path.chmod(0o755)
        else:
            path.chmod(0o644)


def layout_tree(spec: DebSpec, root: Path) -> None:
    app_dir = root / INSTALL_DIR
    app_dir.parent.mkdir(parents=True)
    shutil.copytree(spec.bundle, app_dir, symlinks=True)

    manifest = next(app_dir.rglob("models/models.toml"), None)
    usr_bin = root / "usr" / "bin"
    usr_bin.mkdir(parents=True)
    (usr_bin / EXECUTABLE).write_text(wrapper_text(), encoding="utf-8")
    (usr_bin / EXECUTABLE).chmod(0o755)

    apps = root / "usr" / "share" / "applications"
    apps.mkdir(parents=True)
    shutil.copyfile(spec.desktop, apps / f"{PACKAGE}.desktop")

    if spec.icon is not None:
        icons = root / "usr" / "share" / "icons" / "hicolor" / "scalable" / "apps"
        icons.mkdir(parents=True)
        shutil.copyfile(spec.icon, icons / f"{PACKAGE}.svg")

    doc = root / "usr" / "share" / "doc" / PACKAGE
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(
        copyright_text(str(manifest.relative_to(root)) if manifest else None), encoding="utf-8")

    normalise_modes(root)

    debian = root / "DEBIAN"
    debian.mkdir()
    debian.chmod(0o755)  # mkdir's mode obeys the umask: a caller's 077 made dpkg-deb refuse it
    control = control_text(spec, installed_size_kib(root), depends_for(spec.bundle))
    (debian / "control").write_text(control, encoding="utf-8")
    (debian / "control").chmod(0o644)
    for name in ("postinst", "postrm"):
        (debian / name).write_text(CACHE_SCRIPT, encoding="utf-8")
        (debian / name).chmod(0o755)


def build(spec: DebSpec) -> Path:
    check_inputs(spec)
    check_dpkg_deb()
    spec.out_dir.mkdir(parents=True, exist_ok=True)
    target = spec.out_dir / spec.deb_name
    # Tree and partial .deb live next to the output (same disk; the bundle is GBs) and
    # are removed on any failure, so an error never leaves a half-built .deb behind.
    with tempfile.TemporaryDirectory(prefix=".deb-build-", dir=spec.out_dir) as tmp:
        root = Path(tmp) / "root"
        root.mkdir()
        layout_tree(spec, root)
        partial = Path(tmp) / spec.deb_name
        # xz at its strongest (-9, extreme): 504 MB where xz's default level made 513 MB of the
        # same bundle (its model weights and native libraries barely compress).
        strongest = ["-z9", "-Sextreme"] if spec.compression == "xz" else []
        result = subprocess.run(
            ["dpkg-deb", "--root-owner-group", f"-Z{spec.compression}", *strongest, "--build", str(root), str(partial)],
            check=False, capture_output=True, text=True)
        if result.returncode != 0:
            detail = (result.stderr.strip().splitlines() or ["no output"])[-1]
            raise BuildError(f"dpkg-deb failed: {detail}")
        os.replace(partial, target)
    return target


def parse_args(argv: list[str] | None) -> DebSpec:
    parser = argparse.ArgumentParser(description="Build the tutor-app .deb from a PyInstaller bundle.")
    parser.add_argument("--bundle", required=True, type=Path,
                        help="the one-folder bundle (dist/tutor-app)")
    parser.add_argument("--version", required=True, help="package version, e.g. 0.1.0")
    parser.add_argument("--out", required=True, type=Path, help="folder for the .deb")
    parser.add_argument("--arch", default=None,
                        help="Debian architecture (default: dpkg --print-architecture)")
    parser.add_argument("--desktop", type=Path, default=HERE / "tutor-app.desktop")
    parser.add_argument("--icon", type=Path, default=None, help="SVG icon (default: the project's)")
    parser.add_argument("--compression", default="gzip", choices=("xz", "gzip", "zstd", "none"),
                        help="dpkg-deb compressor (gzip: ~10x faster than xz on 2 GB of bundle, "
                             "which mostly holds already-compressed weights; xz: smallest)")
    args = parser.parse_args(argv)
    return DebSpec(bundle=args.bundle, version=args.version, arch=args.arch or default_arch(),
                   out_dir=args.out, desktop=args.desktop, icon=args.icon or default_icon(),
                   compression=args.compression)


def main(argv: list[str] | None = None) -> int:
    spec = parse_args(argv)
    try:
        deb = build(spec)
    except BuildError as exc:
        print(f"build_deb: {exc}", file=sys.stderr)
        return 1
    print(deb)
    return 0


if __name__ == "__main__":
    sys.exit(main())
