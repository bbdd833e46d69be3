"""Interruption: speech confirmed over the tutor (full duplex) - is the learner taking the
floor? A strategy of the Listener (call/listen/listener.py): it decides, the Listener acts
(ducks and stops the tutor, asks for the words).

It decides from what the audio says and confirms with the words:
- the speech is confirmed (`min_speech_ms` of voice, plus the start AEC3 hid from the VAD):
  DUCK the tutor at once;
- at `words_at_ms` of voice: ASK_WORDS, its words so far (Whisper told to expect a
  backchannel); they interrupt only when they ask for the floor (`words_so_far`);
- at `backchannel_max_ms` of voice: INTERRUPT, whatever the words (`takes_floor`: the
  acoustic decision; today the voice's length alone);
- when it ends short, its words decide (`ended`): a backchannel (kept), nothing (the
  tutor's words leaking back, a hum Whisper made words of) or an interruption.
The acoustic decision is `takes_floor`, asked on every voiced frame: a sooner one (from
energy over the echo, pitch, the VAD's features) replaces it there, and `ended` is where
the words confirm it. Sounds too short to confirm are call/listen/overlap.py's; the rules
on words are call/listen/turn_taking.py's.
"""
from __future__ import annotations

from enum import Enum

from tutor_app.call.listen.turn_taking import BACKCHANNEL, INTERRUPTION, backchannel_heard, over_the_tutor
from tutor_app.call.options import InterruptionOptions
from tutor_app.core.types import FRAME_MS


class Over(Enum):
    ASK_WORDS = "ask words"  # transcribe the words so far
    INTERRUPT = "interrupt"  # stop the tutor: the learner has the floor


class Interruption:
    def __init__(self, options: InterruptionOptions, confirm_frames: int) -> None:
        self._options = options
        self._confirm = confirm_frames  # the voice that confirmed the speech (the segmenter's)
        self.voiced: int | None = None  # voiced frames of undecided speech over the tutor (None: none)
        self.asked = False  # its words so far were asked for

    @property
    def undecided(self) -> bool:
        return self.voiced is not None

    @property
    def voiced_ms(self) -> float:
        return (self.voiced or 0) * FRAME_MS

    def started(self, over_tutor: bool, hidden: int) -> bool:
        """Speech was confirmed; `over_tutor`: the tutor is audible (full duplex); `hidden`:
        voiced frames before the VAD's start that AEC3 hid. True: duck the tutor."""
        self.asked = False
        if not (self._options.enabled and over_tutor):
            return False
        self.voiced = self._confirm + hidden
        return True

    def voice(self) -> Over | None:
        """One more voiced frame of the speech."""
        if self.voiced is None:
            return None
        self.voiced += 1
        if self.takes_floor():
            return Over.INTERRUPT
        if self.voiced_ms >= self._options.words_at_ms and not self.asked:
            self.asked = True
            return Over.ASK_WORDS
        return None

    def takes_floor(self) -> bool:
        """The acoustic decision: speech this long over the tutor is never a backchannel."""
        return self.voiced_ms >= self._options.backchannel_max_ms

    def words_so_far(self, text: str, tutor_said: str) -> bool:
        """Its words at `words_at_ms` of voice are in: True when they ask for the floor."""
        return self.undecided and over_the_tutor(text, tutor_said, self._options.words_at_ms,
                                                 so_far=True) == INTERRUPTION

    def ended(self, text: str, tutor_said: str) -> tuple[str, str]:
        """The speech ended short of `backchannel_max_ms`: (what it was, the backchannel
        words to keep) - INTERRUPTION, BACKCHANNEL or NOTHING (turn_taking.over_the_tutor)."""
        voiced_ms = self.voiced_ms
        what = over_the_tutor(text, tutor_said, voiced_ms)
        return what, backchannel_heard(text, voiced_ms) if what == BACKCHANNEL else ""

    def stop(self) -> bool:
        """Decided (or forgotten): True when it was undecided (the tutor was ducked)."""
        was = self.voiced is not None
        self.voiced = None
        return was
