"""The acoustic floor decision: is speech over the tutor a learner taking the floor, judged
from the audio alone within ~350 ms of voice, long before its words are transcribed?

Asked on every voiced frame of confirmed speech over the tutor (call/listen/interruption.py).
It says "takes the floor" when, all at once:
- the voice is long enough (`floor_ms`, counting the start AEC3 hid from the VAD): shorter
  "yeah", "right", "uh-huh" (Piper: 220-350 ms of voice) never get there. The latest
  frames, when the VAD still calls them voiced but they are QUIET_DB under the loudest so
  far, are a sound's fading tail (Silero holds "speech" for 2-3 frames after the voice
  ends), not voice - until a louder frame follows: then they were a dip inside speech
  (AEC3's suppressor makes many in double talk) and count. Counted, a "Yeah." over the
  tutor reached the floor on its tail (-26 and -48 dB, -40 and -84 dB in `bench echo`).
  The price: a first word that fades right at the floor's length ("Sorry, ...") waits for
  the next one (of 23 pauses logged in `bench echo` runs, 25 dB delays 4 by 1-2 voiced
  frames, 20 dB 6; both keep the two "Yeah." false stops from pausing);
- it is open speech, not a hum: a nasal "mm-hmm" / "hmm" keeps ~2/3 of its energy under
  350 Hz (HUM_SHARE; open vowels and consonants about 1/4-1/3);
- it is voice, not noise: a cough or a breath is a flat spectrum (NOISE_FLATNESS; voiced
  speech has harmonics, far from flat);
- it is the learner and not the tutor's own echo: over its last RECENT_FRAMES, the linear
  echo removal (speech/double_talk.py) takes at most MAX_REMOVED_DB off the microphone -
  a second voice is not removed, the echo alone is (12-20 dB): the learner's energy
  against the echo estimate. Residual echo the VAD takes for voice does not pass. The
  Interruption asks the same check (`tutor_echo`) of a hum or a noise that reaches its
  length rule.
It decides nothing by itself: the Interruption pauses the tutor on it, and the words decide
whether the pause becomes the end of the tutor's turn or the tutor resumes.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tutor_app.core.types import FRAME_MS, SAMPLE_RATE

HUM_SHARE = 0.5  # mean share of a voiced frame's energy under 350 Hz: more is a hum
NOISE_FLATNESS = 0.3  # mean spectral flatness (geometric / arithmetic mean power): more is noise
MAX_REMOVED_DB = 6.0  # the linear echo removal takes at most this off the learner's voice
RECENT_FRAMES = 8  # ... over the last this many frames (256 ms)
RECHECK_FRAMES = 4  # a failed echo check is asked again this many voiced frames later (a fit each time)
QUIET_DB = 25.0  # the latest voiced frames this far under the loudest so far: a fading tail, not voice

_BINS = np.fft.rfftfreq(512, 1 / SAMPLE_RATE)
_LOW = (_BINS >= 60) & (_BINS < 350)
_ALL = (_BINS >= 60) & (_BINS < 8000)
_WINDOW = np.hanning(512)


@dataclass(frozen=True)
class FrameSound:
    """What one voiced 32 ms frame sounds like: its share of energy under 350 Hz (a hum's)
    and its spectral flatness (noise's)."""

    low: float
    flatness: float
    level: float = 0.0  # RMS (full scale 1.0)


def frame_sound(frame: np.ndarray) -> FrameSound:
    """The sound of one frame (AEC3's output, as the VAD heard it); about 20 us."""
    x = np.asarray(frame, dtype=np.float64)[:512]
    if x.size < 512:
        x = np.pad(x, (0, 512 - x.size))
    power = np.abs(np.fft.rfft(x * _WINDOW)) ** 2 + 1e-12
    band = power[_ALL]
    total = float(band.sum())
    flatness = float(np.exp(np.mean(np.log(band))) / np.mean(band))
    return FrameSound(float(power[_LOW].sum()) / total, flatness, float(np.sqrt(np.mean(x * x))))


def sounds_like(sounds: list[FrameSound]) -> str:
    """"hum" (a nasal "mm": HUM_SHARE), "noise" (a flat spectrum: NOISE_FLATNESS) or ""
    (open speech, or nothing yet) for these voiced frames together."""
    if not sounds:
        return ""
    if float(np.mean([s.low for s in sounds])) >= HUM_SHARE:
        return "hum"
    return "noise" if float(np.mean([s.flatness for s in sounds])) >= NOISE_FLATNESS else ""


def levels(sounds: list[FrameSound]) -> str:
    """The frames' levels in dB under the loudest of them (logs)."""
    peak = max((s.level for s in sounds), default=0.0)
    return " ".join(f"{20 * np.log10(max(s.level, 1e-9) / peak):.0f}" if peak > 0 else "-" for s in sounds)


class FloorDecision:
    """One per stretch of speech over the tutor (see the module doc)."""

    def __init__(self, floor_ms: float, voiced: int, sounds: list[FrameSound]) -> None:
        """`voiced`: the voice so far in frames (the confirmed start, plus what AEC3 hid);
        `sounds`: what the voiced frames heard so far sounded like."""
        self._floor = max(1, round(floor_ms / FRAME_MS))
        self.voiced = voiced
        self.sounds: list[FrameSound] = []
        self._peak = 0.0  # the loudest frame so far
        self.tail = 0  # the latest voiced frames, a fading tail so far (QUIET_DB): not voice yet
        for sound in sounds:
            self._add(sound)
        self._next_check = 0  # voiced frames before the echo check may be asked again
        self.why = ""  # why it is not (yet) the floor: "short", "hum", "noise", "echo" (logs, tests)
        self.echo = False  # the last echo check called it the tutor's own echo
        self.removed_db: float | None = None  # what that check found the linear removal took off (logs)

    def _add(self, sound: FrameSound) -> None:
        self.sounds.append(sound)
        self._peak = max(self._peak, sound.level)
        quiet = sound.level < self._peak * 10 ** (-QUIET_DB / 20)
        self.tail = self.tail + 1 if quiet else 0  # a louder frame: the quiet ones were a dip

    def profile(self) -> str:
        """Its voiced frames' levels in dB under the loudest, and what the last echo check
        found (logs: why a sound paused the tutor, or did not)."""
        removed = "" if self.removed_db is None else f"; the echo removal took {self.removed_db:.1f} dB off"
        return levels(self.sounds) + removed

    @property
    def hum(self) -> bool:
        return sounds_like(self.sounds) == "hum"

    @property
    def noise(self) -> bool:
        return sounds_like(self.sounds) == "noise"

    def frame(self, sound: FrameSound, echo_removed_db: Callable[[], float | None]) -> bool:
        """One more voiced frame: True when the learner takes the floor. `echo_removed_db()`:
        what the linear echo removal takes off the last RECENT_FRAMES (None: no canceller's
        input to tell by), asked only when everything else says so."""
        self.voiced += 1
        self._add(sound)
        self._next_check -= 1
        if self.voiced - self.tail < self._floor:
            self.why = "short"
        elif self.hum:
            self.why = "hum"
        elif self.noise:
            self.why = "noise"
        elif self._next_check <= 0:
            if not self.tutor_echo(echo_removed_db):
                return True
            self.why = "echo"
        return False

    def tutor_echo(self, echo_removed_db: Callable[[], float | None]) -> bool:
        """The echo check, asked at most every RECHECK_FRAMES voiced frames once it said
        "echo" (a fit each time): True when the linear echo removal takes more than
        MAX_REMOVED_DB off the last RECENT_FRAMES - the tutor's own echo, not a second voice."""
        if self._next_check <= 0:
            self.removed_db = echo_removed_db()
            self.echo = self.removed_db is not None and self.removed_db > MAX_REMOVED_DB
            self._next_check = RECHECK_FRAMES if self.echo else 0
        return self.echo
