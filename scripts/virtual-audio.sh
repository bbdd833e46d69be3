#!/usr/bin/env bash
# Sourced: a PulseAudio daemon with two null sinks. `spk` is the app's speaker, `micsrc`
# is fed by tests and its monitor is the default microphone. Exports PULSE_SERVER and
# XDG_RUNTIME_DIR for the processes started after it; stops the daemon on exit.
export XDG_RUNTIME_DIR="${TMPDIR:-/tmp}/tutor-xdg-$$"
mkdir -p -m 700 "$XDG_RUNTIME_DIR"
export PULSE_SERVER="unix:$XDG_RUNTIME_DIR/pulse/native"
pulseaudio -D --exit-idle-time=-1 --disallow-exit --log-target=file:"$XDG_RUNTIME_DIR/pulse.log" 2>/dev/null || true
for _ in $(seq 50); do pactl info >/dev/null 2>&1 && break; sleep 0.1; done
if pactl info >/dev/null 2>&1; then
  pactl unload-module module-suspend-on-idle >/dev/null 2>&1 || true
  pactl load-module module-null-sink sink_name=spk >/dev/null
  pactl load-module module-null-sink sink_name=micsrc >/dev/null
  pactl set-default-sink spk
  pactl set-default-source micsrc.monitor
  # Keep both monitors busy: otherwise the first stream open waits ~2 s for a callback.
  pacat -r --latency-msec=20 -d micsrc.monitor >/dev/null 2>&1 & _TUTOR_KEEP1=$!
  pacat -r --latency-msec=20 -d spk.monitor >/dev/null 2>&1 & _TUTOR_KEEP2=$!
  export TUTOR_APP_VIRTUAL_AUDIO=1
  trap 'kill $_TUTOR_KEEP1 $_TUTOR_KEEP2 $(cat "$XDG_RUNTIME_DIR/pulse/pid" 2>/dev/null) 2>/dev/null || true' EXIT
else
  echo "virtual sound card unavailable: audio tests will be skipped (and fail under CI=true)" >&2
fi
