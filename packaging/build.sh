#!/usr/bin/env bash
# Build the installer for this platform: PyInstaller one-folder build, then on Linux a
# .deb (packaging/linux/build_deb.py; needs dpkg-deb) and a tar.gz with a .desktop file
# and an install script for installing without root (packaging/linux/), on Windows the
# Inno Setup script (packaging/windows/tutor-app.iss), on macOS the .app (see macos/).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
VERSION=$($PY -c 'import tutor_app; print(tutor_app.__version__)')
# The bundle takes the venv's libraries as they are: refuse a venv that is not what the
# tests ran (constraints.txt) or whose Qt binding loses references (PySide6 6.12.0 did).
QT_QPA_PLATFORM=offscreen $PY -m pytest -q -p no:cacheprovider tests/unit/test_pinned_environment.py \
  tests/unit/test_qt_refcounts.py
# Python modules stored, not zlib-compressed, in the bundle's archive: the .deb's xz then
# packs them tighter than zlib did (the installed app is ~30 MB larger, the .deb smaller).
export PYINSTALLER_ZLIB_COMPRESSION_LEVEL=0
$PY -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/tutor-app.spec
case "$(uname -s)" in
  Linux)
    # Some wheels ship debug info (ctranslate2's extension: 63 MB of it, libpython: 15 MB):
    # --strip-debug drops only that, every symbol the dynamic linker needs stays.
    if command -v strip >/dev/null 2>&1 && command -v readelf >/dev/null 2>&1; then
      find dist/tutor-app -type f \( -name '*.so' -o -name '*.so.*' \) -print0 |
        while IFS= read -r -d '' lib; do
          # not `readelf | grep -q`: grep's early exit SIGPIPEs readelf, which pipefail counts
          sections=$(readelf -S "$lib" 2>/dev/null || true)
          if [[ $sections == *.debug_info* ]]; then strip --strip-debug "$lib"; fi
        done
    fi
    out="dist/tutor-app-${VERSION}-linux-$(uname -m)"
    rm -rf "$out" && mkdir -p "$out"
    cp -r dist/tutor-app "$out/app"
    cp packaging/linux/tutor-app.desktop packaging/linux/install.sh "$out/"
    # The project's icon if there is one, else the fallback in packaging/linux/.
    cp assets/icons/tutor-app.svg "$out/" 2>/dev/null || cp packaging/linux/tutor-app.svg "$out/"
    tar -C dist -czf "$out.tar.gz" "$(basename "$out")"
    rm -rf "$out"  # the tar.gz carries it; a second 2 GB copy only fills the disk
    if command -v dpkg-deb >/dev/null 2>&1; then
      # xz -9e by default: ~20% smaller than gzip, ~3x the time (DEB_COMPRESSION=gzip builds quicker).
      deb=$($PY packaging/linux/build_deb.py --bundle dist/tutor-app --version "$VERSION" --out dist \
            --compression "${DEB_COMPRESSION:-xz}")
      echo "built $deb (double-click to install, or: sudo apt install ./$(basename "$deb"))"
    else
      echo "no dpkg-deb here: skipped the .deb (build it on Debian/Ubuntu)"
    fi
    echo "built $out.tar.gz (per-user install without root: unpack, then ./install.sh)"
    ;;
  Darwin) echo "built dist/Tutor.app (see packaging/macos/README.md to sign and notarise)" ;;
  *) echo "built dist/tutor-app; compile packaging/windows/tutor-app.iss with Inno Setup" ;;
esac
