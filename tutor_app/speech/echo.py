"""Echo handling: the tutor must not hear (and transcribe) itself. Three modes:

headset: microphone and speaker are acoustically separate. Full duplex, no canceller.
speaker: laptop speakers and microphone. WebRTC's echo canceller (speech/aec.py) removes
  the tutor's voice from the microphone, so the call stays full duplex: the learner can
  talk over the tutor at normal volume. The default whenever the canceller loads.
gated: the fallback when the canceller cannot run. While the tutor speaks, plus a short
  tail for the room's echo, the microphone is gated: nothing goes to turn-taking, and
  barge-in needs speech clearly louder than the tutor's echo, held for longer. Speaker mode
  falls back to it for the rest of a reply when the canceller's pairing broke while the
  tutor was audible (an audio stall).

This module picks the mode; the live call's gate applies it frame by frame
(call/listen/echo_gate.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tutor_app.speech.sound_devices import DeviceInfo

HEADSET, SPEAKER, GATED = "headset", "speaker", "gated"
MODES = (HEADSET, SPEAKER, GATED)

_HEADSET_WORDS = ("headset", "headphone", "earphone", "earbud", "airpods", "buds", "hands-free",
                  "handsfree", "bluetooth", "usb audio", "jabra", "plantronics", "poly ", "hyperx")
_SPEAKER_WORDS = ("built-in", "builtin", "internal", "laptop", "realtek", "array", "webcam", "speaker")


def suggest_mode(devices: Sequence[DeviceInfo]) -> tuple[str, str]:
    """(mode, reason) from the default devices' names (DeviceInfo from audio_io): a
    headset-like name gives headset mode; otherwise speaker mode (echo cancelled), the
    safe choice (the tutor must never hear itself)."""
    defaults = [d for d in devices if getattr(d, "default_input", False) or getattr(d, "default_output", False)]
    names = " | ".join(d.name.lower() for d in (defaults or devices))
    if any(w in names for w in _HEADSET_WORDS):
        return HEADSET, f"headset-like device ({names}): full duplex, no echo canceller needed"
    if any(w in names for w in _SPEAKER_WORDS):
        return SPEAKER, f"built-in microphone/speakers ({names}): echo cancelled, full duplex"
    return SPEAKER, "no headset recognised: echo cancelled, full duplex"


def resolve_mode(setting: str, devices: Sequence[DeviceInfo], canceller: bool, why_not: str = "") -> tuple[str, str]:
    """(mode, reason) for the `audio_mode` setting: "auto" (or anything unknown) looks at
    the device names; speaker mode falls back to gated when the canceller cannot run."""
    if setting == HEADSET:
        return HEADSET, "headset chosen in settings: full duplex, no echo canceller"
    if setting == GATED:
        return GATED, "gated chosen in settings: microphone gated while the tutor speaks"
    if setting == SPEAKER:
        mode, reason = SPEAKER, "speaker chosen in settings: echo cancelled, full duplex"
    else:
        mode, reason = suggest_mode(devices)
    if mode == SPEAKER and not canceller:
        return GATED, ("the echo canceller cannot run" + (f" ({why_not})" if why_not else "")
                       + ": microphone gated while the tutor speaks")
    return mode, reason
