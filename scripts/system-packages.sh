#!/usr/bin/env bash
# System packages the app and its tests need (PortAudio, a virtual sound card and
# screen for tests, Qt's X libraries). Installs only what is missing, and only as root;
# otherwise prints the command to run.
set -euo pipefail
PKGS=(libportaudio2 pulseaudio pulseaudio-utils libasound2-plugins
      xvfb xauth libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0 libxkbcommon-x11-0
      libxcb-image0 libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-xfixes0
      libxcb-xkb1 libegl1 libgl1 libfontconfig1 libdbus-1-3 fonts-dejavu-core
      espeak-ng   # extra voices for the pause clips (tutor_app/bench/pause_clips.py)
      fonts-noto-cjk)  # Korean text (the .deb depends on it; tests/ui/test_korean_font.py)
command -v dpkg-query >/dev/null || { echo "not a Debian system: install PortAudio and Qt's X libraries yourself"; exit 0; }
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
python3 -c 'import venv, ensurepip' 2>/dev/null || missing+=(python3-venv)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
  echo "missing system packages; run: sudo apt-get install ${missing[*]}" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
