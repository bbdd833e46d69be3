#!/usr/bin/env bash
# The test suite: starts a virtual sound card (PulseAudio null sinks) when PulseAudio is
# installed, so the real PortAudio path is exercised, then type-checks (mypy) and runs
# pytest offline.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
export QT_QPA_PLATFORM=offscreen
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
unset ANTHROPIC_API_KEY ANTHROPIC_BASE_URL
if command -v pulseaudio >/dev/null && [ -z "${TUTOR_APP_NO_VIRTUAL_AUDIO:-}" ]; then
  source scripts/virtual-audio.sh
fi
"$VENV/bin/python" -m ruff check tutor_app tests packaging scripts  # lint first ([tool.ruff])
"$VENV/bin/python" -m mypy  # type check (config: [tool.mypy] in pyproject.toml)
# The slowest tests at the end: where the suite's time goes (its aim: ~25 min in CI).
"$VENV/bin/python" -m pytest -m "not bench" --durations=25 "$@"
