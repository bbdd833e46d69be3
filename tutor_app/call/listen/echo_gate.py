"""The echo gate: does a microphone frame reach turn-taking, and is it a barge-in? A strategy
of the Listener (call/listen/listener.py): decisions from the frames it is given, no I/O.

In headset and speaker mode (echo cancelled) the call is full duplex: every frame is
listened to. In gated mode (no canceller: speech/echo.py) the microphone is shut while
the tutor speaks and for `echo.tail_ms` after (the room rings on), and speech over the
tutor stops it only when it is loud enough over the tutor's echo for long enough
(`interruption.loud_*`). Speaker mode falls back to gated for the rest of a reply when
the canceller's pairing broke while the tutor was audible (`unsettle`: an audio stall;
AEC3 then leaked the tutor's echo for 1-5 s on the looped-back sound card, enough to
sound like the learner).

Everything counts frames of captured audio, not wall time: deterministic for a given
stream of frames.
"""
from __future__ import annotations

import logging
from collections import deque
from collections.abc import Iterable
from enum import Enum

from tutor_app.call.listen.overlap import Ref, rms_of
from tutor_app.call.options import EchoOptions, InterruptionOptions, frames
from tutor_app.speech.echo import GATED, SPEAKER

log = logging.getLogger(__name__)

FAR_AUDIBLE_RMS = 0.01  # a far-end frame at least this loud: the tutor's echo is in the microphone
ECHO_LEARNED = 16  # frames of the tutor's echo (0.5 s) before loudness over it is judged


class Gate(Enum):
    LISTEN = "listen"  # the frame goes to turn-taking
    SHUT = "shut"  # the microphone shuts with this frame: forget what was in flight
    SHUT_STILL = "shut still"  # still shut: the frame is dropped
    BARGE_IN = "barge-in"  # loud speech over the tutor: stop it, replay what was shut out


class EchoGate:
    def __init__(self, echo: EchoOptions | None = None, interruption: InterruptionOptions | None = None) -> None:
        self.echo = echo or EchoOptions()
        self.interruption = interruption or InterruptionOptions()
        self._tail_left = 0  # frames of the tail still shut after the tutor stopped
        self._loud_run = 0  # frames in a row of loud speech over the tutor
        self._echo_levels: deque[float] = deque(maxlen=32)  # ~1 s of the tutor's echo
        self._unsettled = False  # speaker mode gated for the rest of this reply
        self._shut = False

    @property
    def full_duplex(self) -> bool:
        """The microphone is listened to while the tutor speaks (headset, or echo cancelled
        and not unsettled)."""
        return self.echo.mode != GATED and not self._unsettled

    def unsettle(self, tutor_audible: bool, before: Iterable[Ref] = ()) -> None:
        """The canceller's pairing broke (speech/aec.py `Cancelled.broke`). While the tutor
        is audible, speaker mode is gated until it stops and the tail has passed: its
        echo may leak for seconds. A break in silence leaves the canceller time to settle.
        Barge-in then needs speech louder than the echo in the raw microphone, learned
        from `before` (microphone, far end) and what follows."""
        if tutor_audible and self.echo.mode == SPEAKER and not self._unsettled:
            self._unsettled = True
            self._loud_run = 0
            self._echo_levels.clear()
            for ref in before:
                self._learn_echo(ref)
            log.info("the echo canceller's timing broke while the tutor spoke (an audio stall): "
                     "microphone gated for the rest of this reply")

    def frame(self, tutor_speaking: bool, probability: float, rms: float, ref: Ref | None = None) -> Gate:
        """One microphone frame: its VAD `probability` and level `rms`; `ref` the frame
        before the canceller and its far end, when one runs."""
        if self._listen(tutor_speaking):
            self._shut = False
            return Gate.LISTEN
        first = not self._shut
        self._shut = True
        if tutor_speaking and self._loud(probability, rms, ref):
            self._loud_run = 0  # listen at once (no tail), count loudness afresh
            self._tail_left = 0
            self._shut = False
            return Gate.BARGE_IN
        return Gate.SHUT if first else Gate.SHUT_STILL

    def _listen(self, tutor_speaking: bool) -> bool:
        if self.full_duplex:
            return True
        if tutor_speaking:
            self._tail_left = frames(self.echo.tail_ms)
            return False
        if self._tail_left > 0:
            self._tail_left -= 1
            return False
        self._unsettled = False  # the reply (and its tail) is over: full duplex again
        return True

    def _loud(self, probability: float, rms: float, ref: Ref | None) -> bool:
        """True once speech loud enough over the echo has lasted `loud_min_ms`. The echo
        level is learned from the quieter frames. With `ref` (a canceller runs, but its
        output leaks after a stall) the raw microphone is judged, the echo's level is
        learned from frames where the tutor was audible, and nothing is loud before
        `ECHO_LEARNED` of them (the reply may just have begun: its silence is no echo level)."""
        o = self.interruption
        if not o.enabled:
            return False
        if ref is not None:
            rms = rms_of(ref[0])
        # After a break: over the echo's loud syllables (90th percentile), not its median,
        # which the tutor's own louder syllables passed for 400 ms once in 10 stalled replies.
        share = 0.5 if ref is None else 0.9
        echo = sorted(self._echo_levels)[int(len(self._echo_levels) * share)] if self._echo_levels else 0.0
        loud = (probability >= o.loud_probability and rms >= max(o.loud_min_rms, o.loud_over_echo * echo)
                and (ref is None or len(self._echo_levels) >= ECHO_LEARNED))
        if loud:
            self._loud_run += 1
        else:
            self._loud_run = 0
            if ref is None:
                self._echo_levels.append(rms)
            else:
                self._learn_echo(ref)
        if self._loud_run >= frames(o.loud_min_ms):
            self._loud_run = 0
            return True
        return False

    def _learn_echo(self, ref: Ref) -> None:
        if rms_of(ref[1]) >= FAR_AUDIBLE_RMS:
            self._echo_levels.append(rms_of(ref[0]))
