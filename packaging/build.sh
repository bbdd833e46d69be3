#!/usr/bin/env bash
# Build the installer for this platform: PyInstaller one-folder build, then on Linux a
# tar.gz with a .desktop file and an install script (packaging/linux/), on Windows the
# Inno Setup script (packaging/windows/tutor-app.iss), on macOS the .app (see macos/).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
VERSION=$($PY -c 'import tutor_app; print(tutor_app.__version__)')
$PY -m PyInstaller --noconfirm --clean --distpath dist --workpath build/pyinstaller packaging/tutor-app.spec
case "$(uname -s)" in
  Linux)
    out="dist/tutor-app-${VERSION}-linux-$(uname -m)"
    rm -rf "$out" && mkdir -p "$out"
    cp -r dist/tutor-app "$out/app"
    cp packaging/linux/tutor-app.desktop packaging/linux/install.sh "$out/"
    cp assets/icons/tutor-app.svg "$out/" 2>/dev/null || true
    tar -C dist -czf "$out.tar.gz" "$(basename "$out")"
    echo "built $out.tar.gz (unpack, then ./install.sh)"
    ;;
  Darwin) echo "built dist/Tutor.app (see packaging/macos/README.md to sign and notarise)" ;;
  *) echo "built dist/tutor-app; compile packaging/windows/tutor-app.iss with Inno Setup" ;;
esac
