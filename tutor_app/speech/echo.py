"""Echo handling: the tutor must not hear (and transcribe) itself. Three modes:

headset: microphone and speaker are acoustically separate. Full duplex, no canceller.
speaker: laptop speakers and microphone. WebRTC's echo canceller (speech/aec.py) removes
  the tutor's voice from the microphone, so the call stays full duplex: the learner can
  talk over the tutor at normal volume. The default whenever the canceller loads.
gated: the fallback when the canceller cannot run. While the tutor speaks, plus a short
  tail for the room's echo, the microphone is gated: nothing goes to turn-taking, and
  barge-in needs speech clearly louder than the tutor's echo, held for longer. Speaker mode
  falls back to it for the rest of a reply when the canceller's pairing broke while the
  tutor was audible (`EchoGate.unsettle`: an audio stall; AEC3 then leaked the tutor's
  echo for 1-5 s on the looped-back sound card, enough to sound like the learner).

Everything here counts frames of captured audio, not wall time, so it is deterministic
for a given stream of frames.
"""
from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from tutor_app.settings import SpeechSettings
    from tutor_app.speech.sound_devices import DeviceInfo

log = logging.getLogger(__name__)

HEADSET, SPEAKER, GATED = "headset", "speaker", "gated"
MODES = (HEADSET, SPEAKER, GATED)
FRAME_MS = 32.0  # one 512-sample VAD frame at 16 kHz
FAR_AUDIBLE_RMS = 0.01  # a far-end frame at least this loud: the tutor's echo is in the microphone
ECHO_LEARNED = 16  # frames of the tutor's echo (0.5 s) before loudness over it is judged


@dataclass(frozen=True)
class EchoOptions:
    mode: str = HEADSET
    barge_in: bool = True
    tail_ms: int = 400  # speaker mode: the room keeps ringing after playback stops
    loud_min_rms: float = 0.08  # speaker-mode barge-in: absolute floor ...
    loud_over_echo: float = 3.0  # ... and this many times the tutor's echo level
    loud_min_ms: int = 400  # held this long (a door slam or a laugh is shorter)
    speech_probability: float = 0.5

    @classmethod
    def from_settings(cls, speech: SpeechSettings, devices: Sequence[DeviceInfo] | None = None,
                      canceller: bool = True, why_not: str = "") -> "EchoOptions":
        """`canceller`: whether the echo canceller loads (speaker mode needs it)."""
        return cls(mode=resolve_mode(speech.audio_mode, devices or [], canceller, why_not)[0],
                   barge_in=bool(speech.barge_in))

    @property
    def full_duplex(self) -> bool:
        """The microphone is listened to while the tutor speaks."""
        return self.mode != GATED


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


class EchoGate:
    """Per-frame decision: does this frame go to turn-taking, and is it a barge-in?"""

    def __init__(self, options: EchoOptions | None = None) -> None:
        self.options = options or EchoOptions()
        self._tail_left = 0
        self._loud_run = 0
        self._echo_levels: deque[float] = deque(maxlen=32)  # ~1 s of the tutor's echo
        self._unsettled = False  # speaker mode gated for the rest of this reply

    @property
    def full_duplex(self) -> bool:
        """The microphone is listened to while the tutor speaks (headset, or echo cancelled
        and not unsettled)."""
        return self.options.full_duplex and not self._unsettled

    def unsettle(self, tutor_audible: bool, before: Iterable[tuple[np.ndarray, np.ndarray]] = ()) -> None:
        """The canceller's pairing broke (speech/aec.py `Cancelled.broke`). While the tutor
        is audible, speaker mode is gated until it stops and the tail has passed: its
        echo may leak for seconds. A break in silence leaves the canceller time to settle.
        Barge-in then needs speech louder than the echo in the raw microphone
        (`loud_barge_in`), learned from `before` (microphone, far end) and what follows."""
        if tutor_audible and self.options.mode == SPEAKER and not self._unsettled:
            self._unsettled = True
            self._loud_run = 0
            self._echo_levels.clear()
            for ref in before:
                self._learn_echo(ref)
            log.info("the echo canceller's timing broke while the tutor spoke (an audio stall): "
                     "microphone gated for the rest of this reply")

    def frames(self, ms: float) -> int:
        return max(1, int(round(ms / FRAME_MS))) if ms > 0 else 0

    def listen(self, tutor_speaking: bool) -> bool:
        """False while this frame must not reach turn-taking (gated mode only)."""
        if self.full_duplex:
            return True
        if tutor_speaking:
            self._tail_left = self.frames(self.options.tail_ms)
            return False
        if self._tail_left > 0:
            self._tail_left -= 1
            return False
        self._unsettled = False  # the reply (and its tail) is over: full duplex again
        return True

    def gated(self) -> bool:
        """True while the tail after the tutor's speech is still running."""
        return not self.full_duplex and self._tail_left > 0

    def loud_barge_in(self, probability: float, rms: float,
                      ref: tuple[np.ndarray, np.ndarray] | None = None) -> bool:
        """Gated mode, tutor speaking: True once speech loud enough over the echo has
        lasted `loud_min_ms`. The echo level is learned from the quieter frames. `ref`: the
        frame before the canceller and its far end, when one runs (its output leaks after
        a stall): the echo's level is then learned from frames where the tutor was
        audible, and nothing is loud before `ECHO_LEARNED` of them (the reply may just
        have begun: its silence is no echo level)."""
        o = self.options
        if not o.barge_in:
            return False
        if ref is not None:
            rms = _rms(ref[0])
        # after a break: over the echo's loud syllables (90th percentile), not its median,
        # which the tutor's own louder syllables passed for 400 ms once in 10 stalled replies
        share = 0.5 if ref is None else 0.9
        echo = sorted(self._echo_levels)[int(len(self._echo_levels) * share)] if self._echo_levels else 0.0
        loud = (probability >= o.speech_probability and rms >= max(o.loud_min_rms, o.loud_over_echo * echo)
                and (ref is None or len(self._echo_levels) >= ECHO_LEARNED))
        if loud:
            self._loud_run += 1
        else:
            self._loud_run = 0
            if ref is None:
                self._echo_levels.append(rms)
            else:
                self._learn_echo(ref)
        if self._loud_run >= self.frames(o.loud_min_ms):
            self._loud_run = 0
            return True
        return False

    def _learn_echo(self, ref: tuple[np.ndarray, np.ndarray]) -> None:
        if _rms(ref[1]) >= FAR_AUDIBLE_RMS:
            self._echo_levels.append(_rms(ref[0]))

    def open(self) -> None:
        """After a barge-in: listen at once (no tail), start the loudness count afresh."""
        self._loud_run = 0
        self._tail_left = 0


def _rms(frame: np.ndarray) -> float:
    return float(np.sqrt(np.mean(np.square(frame, dtype=np.float64)))) if frame.size else 0.0
