"""The learner's voice in the raw microphone, louder than the tutor's echo can make it.

A strategy of the Listener (call/listen/listener.py): decisions from the frames it is given.

AEC3's suppressor cannot tell a second voice from residual echo while the tutor plays:
timed outside the app (`bench echo`, one recording of the microphone's feed and the
speaker), it hid the first 220-700 ms of a learner who talked over the tutor, so the
learner's speech was confirmed ~0.9 s after its first voiced sample and the tutor stopped
~1 s after it. The raw microphone holds that voice: a frame whose level is well over the
loudest the tutor's echo has been for that far end (the echo's coupling, learned from the
frames the tutor played alone) carries a voice the echo cannot explain. For such a frame
the Listener takes the VAD's reading of the raw microphone as the frame's probability of
speech (its own live stream: the canceller's output keeps its own); what follows - duck,
the floor by its sound, the words - is unchanged, and its words still come from the
linear copy (call/listen/frames.py).

Measured offline on that recording (0 dB loopback): such frames from 30-40 ms after the
learner's first voiced sample, none over the tutor alone. At 6 dB over the echo's loudest
(the first bound), "Sorry," of "Sorry, can I ask you ..." - a learner about as loud as the
echo - gave 6-7 such frames, short of the 8 that confirm speech, and in half of `bench
echo`'s interruptions the tutor talked on past the comma; at 3 dB it gives 7-10, and 2 of
3220 frames of the echo alone passed (isolated: nothing to confirm), as at 6 dB.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from tutor_app.call.listen.overlap import rms_of


@dataclass(frozen=True)
class NearEndOptions:
    over_echo: float = 1.4  # the raw level this many times the echo's loudest coupling (+3 dB)
    coupling_share: float = 0.9  # the echo's loudest coupling: this share of the learned ones, sorted
    learned: int = 16  # frames of the tutor's echo (0.5 s) before any frame is judged
    far_frames: int = 8  # the far end of the last 256 ms can still be heard in a frame
    far_audible_rms: float = 0.01  # a far end quieter than this played nothing to judge against
    keep: int = 64  # couplings remembered (~2 s of the tutor's echo)


class NearEnd:
    def __init__(self, options: NearEndOptions | None = None) -> None:
        self.options = options or NearEndOptions()
        self._far: deque[float] = deque(maxlen=self.options.far_frames)  # far-end levels, newest last
        self._couplings: deque[float] = deque(maxlen=self.options.keep)  # raw level / far level, echo alone

    @property
    def judging(self) -> bool:
        """The far end of the last frames was audible: frames are judged (and the raw
        microphone's VAD stream is wanted)."""
        return bool(self._far) and max(self._far) >= self.options.far_audible_rms

    def frame(self, raw: np.ndarray, far: np.ndarray) -> bool:
        """One frame of the raw microphone and the far end paired with it: True when the
        raw level is over what the tutor's echo could make it (a voice of the learner's).
        Frames that are not learn the echo's coupling."""
        o = self.options
        self._far.append(rms_of(far))
        loudest_far = max(self._far)
        if loudest_far < o.far_audible_rms:
            return False  # the tutor is quiet: nothing to tell apart (the canceller passes the learner)
        level = rms_of(raw)
        coupling = level / loudest_far
        if len(self._couplings) >= o.learned:
            loudest = sorted(self._couplings)[min(len(self._couplings) - 1, int(o.coupling_share * len(self._couplings)))]
            if coupling >= o.over_echo * loudest:
                return True
        self._couplings.append(coupling)
        return False
