"""A laptop without a headset, on the virtual sound card (scripts/virtual-audio.sh): the
virtual speaker `spk` played back into the virtual microphone `micsrc` with PulseAudio's
module-loopback, at `gain_db`, `latency_ms` late. Used by `bench echo` and the echo tests."""
from __future__ import annotations

import subprocess


class Loopback:
    def __init__(self, latency_ms: int = 30, gain_db: float = 0.0) -> None:
        self.latency_ms, self.gain_db = latency_ms, gain_db
        self.module: str | None = None

    def __enter__(self) -> "Loopback":
        self.module = subprocess.run(
            ["pactl", "load-module", "module-loopback", "source=spk.monitor", "sink=micsrc",
             f"latency_msec={self.latency_ms}", "source_dont_move=true", "sink_dont_move=true"],
            check=True, capture_output=True, text=True).stdout.strip()
        if self.gain_db:
            listing = subprocess.run(["pactl", "list", "sink-inputs"], check=True, capture_output=True,
                                     text=True).stdout
            for block in listing.split("Sink Input #")[1:]:
                if f"Owner Module: {self.module}" in block:
                    subprocess.run(["pactl", "set-sink-input-volume", block.split()[0], f"{self.gain_db}dB"],
                                   check=True)
        return self

    def __exit__(self, *exc) -> None:
        if self.module:
            subprocess.run(["pactl", "unload-module", self.module], check=False, capture_output=True)
