#!/usr/bin/env bash
# Installs the unpacked build for the current user: no Python needed, no root.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix="${PREFIX:-$HOME/.local}"
mkdir -p "$prefix/lib" "$prefix/bin" "$prefix/share/applications" "$prefix/share/icons/hicolor/scalable/apps"
rm -rf "$prefix/lib/tutor-app"
cp -r "$here/app" "$prefix/lib/tutor-app"
ln -sf "$prefix/lib/tutor-app/tutor-app" "$prefix/bin/tutor-app"
sed "s#^Exec=.*#Exec=$prefix/bin/tutor-app gui#" "$here/tutor-app.desktop" > "$prefix/share/applications/tutor-app.desktop"
[ -f "$here/tutor-app.svg" ] && cp "$here/tutor-app.svg" "$prefix/share/icons/hicolor/scalable/apps/"
echo "Tutor installed: run 'tutor-app' or find Tutor in your applications menu."
echo "It needs the PortAudio library for the microphone: sudo apt-get install libportaudio2"
