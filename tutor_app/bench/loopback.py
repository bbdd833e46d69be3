"""A laptop without a headset, on the virtual sound card (scripts/virtual-audio.sh): the
virtual speaker `spk` played back into the virtual microphone `micsrc` with PulseAudio's
module-loopback, at `gain_db`, `latency_ms` late. Used by `bench echo` and the echo tests.

The gain is always set as an absolute linear factor and read back: a "-10dB" given to
pactl is *relative*, and module-stream-restore saves each loopback's volume in the user's
PulseAudio database and hands it to the next one (every daemon of that user shares it),
so relative settings piled up run after run until the loopback was silent (-150 dB)."""
from __future__ import annotations

import re
import subprocess


def load_module(module: str, *arguments: str, purpose: str) -> str:
    """`pactl load-module`: the module's index, or one clear TutorError saying `purpose`."""
    from tutor_app.errors import TutorError

    loaded = subprocess.run(["pactl", "load-module", module, *arguments], check=False, capture_output=True, text=True)
    if loaded.returncode != 0:
        # The daemon went away (the shell that sourced scripts/virtual-audio.sh exited).
        raise TutorError(f"PulseAudio would not load {purpose} "
                         f"({(loaded.stderr or loaded.stdout).strip() or 'no reason given'}): "
                         "run `source scripts/virtual-audio.sh` in this shell first")
    return loaded.stdout.strip()


class Loopback:
    def __init__(self, latency_ms: int = 30, gain_db: float = 0.0) -> None:
        self.latency_ms, self.gain_db = latency_ms, gain_db
        self.module: str | None = None

    def __enter__(self) -> "Loopback":
        self.module = load_module("module-loopback", "source=spk.monitor", "sink=micsrc",
                                  f"latency_msec={self.latency_ms}", "source_dont_move=true", "sink_dont_move=true",
                                  purpose="the loopback from the virtual speaker to the microphone")
        try:
            self._set_gain()
        except Exception:
            self.__exit__()
            raise
        return self

    def _set_gain(self) -> None:
        inputs = [index for index, _ in self._inputs()]
        if not inputs:
            raise RuntimeError(f"loopback module {self.module} has no sink input to set {self.gain_db} dB on")
        factor = f"{10 ** (self.gain_db / 20):.6f}"  # a plain number with a dot: absolute, linear
        for index in inputs:
            subprocess.run(["pactl", "set-sink-input-volume", index, factor], check=True)
        for index, block in self._inputs():
            found = [float(v) for v in re.findall(r"/\s*(-?[\d.]+|-inf) dB", block.split("Volume:", 1)[1].split("\n")[0])]
            if not found or any(abs(v - self.gain_db) > 0.5 for v in found):
                raise RuntimeError(f"loopback sink input {index} is at {found} dB, not {self.gain_db} dB")

    def _inputs(self) -> list[tuple[str, str]]:
        listing = subprocess.run(["pactl", "list", "sink-inputs"], check=True, capture_output=True, text=True).stdout
        return [(block.split()[0], block) for block in listing.split("Sink Input #")[1:]
                if f"Owner Module: {self.module}" in block]

    def __exit__(self, *exc) -> None:
        if self.module:
            subprocess.run(["pactl", "unload-module", self.module], check=False, capture_output=True)
            self.module = None
