"""The machine's sound devices through sounddevice (PortAudio): load the module, list
the devices, and pick the microphone or speaker a setting names."""
from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from tutor_app.errors import TutorError

log = logging.getLogger(__name__)


class NoDeviceError(TutorError):
    """No usable microphone or speaker."""


def load_sounddevice() -> Any:  # the sounddevice module: untyped, so Any
    """The real module, or NoDeviceError when PortAudio itself is missing."""
    try:
        import sounddevice
    except OSError as exc:  # libportaudio2 missing
        raise NoDeviceError(f"PortAudio is not installed ({exc}); on Linux: sudo apt-get install "
                            "libportaudio2") from None
    return sounddevice


@dataclass(frozen=True)
class DeviceInfo:
    index: int
    name: str
    inputs: int
    outputs: int
    default_rate: float
    default_input: bool = False
    default_output: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "name": self.name, "inputs": self.inputs, "outputs": self.outputs,
                "default_rate": self.default_rate, "default_input": self.default_input,
                "default_output": self.default_output}


def list_devices(sd: Any = None) -> list[DeviceInfo]:  # sd: sounddevice, or a test's fake
    """Every device PortAudio sees; [] when it sees none or cannot be asked."""
    sd = sd or load_sounddevice()
    try:
        devices = list(sd.query_devices())
        default_in, default_out = _defaults(sd)
    except Exception as exc:  # noqa: BLE001 - PortAudio errors mean "no devices" here
        log.warning("cannot list audio devices: %s", exc)
        return []
    return [DeviceInfo(i, str(d["name"]), int(d["max_input_channels"]), int(d["max_output_channels"]),
                       float(d.get("default_samplerate") or 0), i == default_in, i == default_out)
            for i, d in enumerate(devices)]


def _defaults(sd: Any) -> tuple[int, int]:
    try:
        pair = list(sd.default.device)
    except Exception:  # noqa: BLE001
        return -1, -1
    return (int(pair[0]) if pair[0] is not None else -1, int(pair[1]) if pair[1] is not None else -1)


def resolve_device(sd: Any, wanted: str, kind: str) -> int | None:
    """Index of the `kind` ("input"/"output") device named (or numbered) `wanted`; None
    means PortAudio's default. Raises NoDeviceError when no such device exists at all."""
    devices = list_devices(sd)
    usable = [d for d in devices if (d.inputs if kind == "input" else d.outputs) > 0]
    noun = "microphone" if kind == "input" else "speaker"
    if not usable:
        raise NoDeviceError(f"no {noun} found: plug one in (or check that the system sees it)")
    wanted = (wanted or "").strip()
    if not wanted:
        default = [d for d in usable if (d.default_input if kind == "input" else d.default_output)]
        return None if default else usable[0].index
    if wanted.isdigit() and any(d.index == int(wanted) for d in usable):
        return int(wanted)
    for d in usable:
        if wanted.lower() in d.name.lower():
            return d.index
    log.warning("%s '%s' not found: using the default", noun, wanted)
    return None
