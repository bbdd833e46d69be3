"""Interruption: speech confirmed over the tutor (full duplex) - is the learner taking the
floor? A strategy of the Listener (call/listen/listener.py): it decides, over_tutor.py acts
(ducks, pauses, resumes or stops the tutor, asks for the words).

The audio decides first, the words confirm:
- the speech is confirmed (`min_speech_ms` of voice, plus the start AEC3 hid from the VAD):
  DUCK the tutor at once;
- the audio says the learner takes the floor (call/listen/floor.py: `floor_ms` of open
  speech, not a hum, not noise, not the tutor's echo), or the voice reaches
  `backchannel_max_ms` whatever it sounds like - unless the echo check (asked then for a
  hum or a noise, which never asked it on the way) calls it the tutor's own echo: PAUSE
  the tutor (its playback holds where it is: a pause, not the end of its turn);
- at `words_at_ms` of voice: ASK_WORDS, its words so far (Whisper told to expect a
  backchannel); they INTERRUPT when they ask for the floor (`words_so_far`);
- paused, the learner talks on over the quiet (`talk_on_ms` of voice since the pause and
  its echo's tail, with no echo to lengthen it any more, not a hum shorter than
  `backchannel_max_ms`: a looped-back "Mm-hmm." whose start the tutor's residual echo made
  open speech paused the tutor and hummed on past it, 1 run in ~10 of the e2e test):
  INTERRUPT - the tutor's turn ends (BARGE_IN). One stretch of voice: a gap of TALK_GAP_FRAMES starts the count
  afresh. Only frames captured once the speaker was quiet count: the far end
  paired with each says so. When the audio thread fell behind (a slow CPU, or the bounded
  wait for earlier words when voice comes first: listener.py), the frames it catches up on
  were captured while the tutor still played; counted as "over the quiet", the echo in
  them turned a looped-back "Mm-hmm." into an interruption;
- when it ends, its words decide (`ended`): an interruption (INTERRUPT), or a backchannel
  (kept) or nothing (the tutor's words leaking back, a hum Whisper made words of, a cough,
  what the echo check last called the tutor's echo - by a floor word only):
  the tutor goes on - at full volume, or RESUMES where it paused.
Sounds too short to confirm are call/listen/overlap.py's; the rules on words are
call/listen/turn_taking.py's.
"""
from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from tutor_app.call.listen.floor import FloorDecision, FrameSound, levels, sounds_like
from tutor_app.call.listen.turn_taking import BACKCHANNEL, INTERRUPTION, backchannel_heard, over_the_tutor
from tutor_app.call.options import InterruptionOptions, frames
from tutor_app.core.types import FRAME_MS

ECHO_TAIL_FRAMES = 3  # after a pause the tutor's voice still rings this long (output latency, the room)
# Paused, a quiet this long between stretches of voice starts the talk-on count afresh:
# talking on is one stretch of voice, not two backchannels with a breath between ("Mm-hmm.
# ... Mm-hmm." half a second apart added up to 480 ms and stopped the tutor). Words run on
# with shorter gaps; a learner who pauses longer and goes on takes the floor 480 ms later
# (the tutor is silent meanwhile: paused).
TALK_GAP_FRAMES = 10
# After the last loud far-end frame its echo is still heard this long: the far end is
# paired ~80 ms after the microphone frame (speech/aec.py AecOptions.shift_ms), then the room.
FAR_TAIL_FRAMES = 5


class Over(Enum):
    ASK_WORDS = "ask words"  # transcribe the words so far
    PAUSE = "pause"  # the audio says the learner takes the floor: the tutor pauses, the words decide
    INTERRUPT = "interrupt"  # stop the tutor: the learner has the floor


class Interruption:
    def __init__(self, options: InterruptionOptions, confirm_frames: int) -> None:
        self._options = options
        self._confirm = confirm_frames  # the voice that confirmed the speech (the segmenter's)
        self._floor: FloorDecision | None = None  # the acoustic decision while the speech is undecided
        self.voiced: int | None = None  # voiced frames of undecided speech over the tutor (None: none)
        self.asked = False  # its words so far were asked for
        self.paused = False  # the acoustic decision paused the tutor
        self.heard = 0  # voiced frames the VAD heard (`voiced` without the start AEC3 hid)
        self.after = -ECHO_TAIL_FRAMES  # voiced frames since the pause, past the echo's tail
        self.talk: list[FrameSound] = []  # what those frames past the tail sounded like
        self._quiet = 0  # unvoiced frames since the last voiced one

    @property
    def undecided(self) -> bool:
        return self.voiced is not None

    @property
    def voiced_ms(self) -> float:
        return (self.voiced or 0) * FRAME_MS

    @property
    def profile(self) -> str:
        """Its voice so far, for the logs: frames counted, heard, and their levels (floor.py)."""
        if self._floor is None:
            return f"{self.voiced or 0} voiced, {self.heard} heard"
        talk = ""
        if self.talk:
            talk = (f"; since the pause ({sounds_like(self.talk) or 'open'}): levels dB {levels(self.talk)}, "
                    f"under 350 Hz {' '.join(f'{s.low:.2f}' for s in self.talk)}")
        return (f"{self.voiced or 0} voiced, {self.heard} heard, {self._floor.tail} a fading tail, "
                f"levels dB {self._floor.profile()}{talk}")

    @property
    def why(self) -> str:
        """Why the audio has not (yet) taken the floor (floor.py: short, hum, noise, echo),
        or "the floor by its sound" once it did."""
        return self._floor.why if self._floor is not None else ""

    def started(self, over_tutor: bool, hidden: int, sounds: list[FrameSound] | None = None) -> bool:
        """Speech was confirmed; `over_tutor`: the tutor is audible (full duplex); `hidden`:
        voiced frames before the VAD's start that AEC3 hid; `sounds`: what its voiced
        frames so far sounded like. True: duck the tutor."""
        self.asked, self.paused, self.after, self.talk = False, False, -ECHO_TAIL_FRAMES, []
        if not (self._options.enabled and over_tutor):
            return False
        self.voiced, self.heard = self._confirm + hidden, self._confirm
        self._floor = FloorDecision(self._options.floor_ms, self.voiced, sounds or [])
        return True

    def voice(self, sound: FrameSound | None = None,
              echo_removed_db: Callable[[], float | None] = lambda: None, tutor_played: bool = False) -> Over | None:
        """One more voiced frame of the speech (`sound`: what it sounded like;
        `echo_removed_db`: floor.py's echo check, asked only when the rest says "the floor";
        `tutor_played`: the far end paired with this frame was loud - captured while the
        tutor still played, whatever it does now)."""
        if self.voiced is None:
            return None
        self.voiced += 1
        self.heard += 1
        self._quiet = 0
        if self.paused and tutor_played:  # not over the quiet: the tutor's echo is in it
            self.after, self.talk = min(self.after, -FAR_TAIL_FRAMES), []
        elif self.paused:
            self.after += 1
            if self.after > 0 and sound is not None:
                self.talk.append(sound)
            if self.after >= frames(self._options.talk_on_ms) and not self._no_sentence(self.talk):
                return Over.INTERRUPT  # a short hum talking on is no sentence: its words decide at its end
        elif self._takes_floor(sound, echo_removed_db):
            self.paused, self.after, self.talk = True, -ECHO_TAIL_FRAMES, []
            return Over.PAUSE
        if self.voiced_ms >= self._options.words_at_ms and not self.asked:
            self.asked = True
            return Over.ASK_WORDS
        return None

    def quiet(self) -> None:
        """One unvoiced frame inside the speech: paused, a gap of TALK_GAP_FRAMES ends the
        stretch of voice that was talking on."""
        if self.voiced is None:
            return
        self._quiet += 1
        if self.paused and self._quiet == TALK_GAP_FRAMES and self.after > 0:
            self.after, self.talk = 0, []

    def _takes_floor(self, sound: FrameSound | None, echo_removed_db: Callable[[], float | None]) -> bool:
        """The acoustic decision (floor.py); speech this long over the tutor is never a
        backchannel, whatever it sounds like - counted as the VAD heard it: the start
        `hidden` before it is an estimate, which the tutor's own voice can lengthen right
        as a reply begins (its echo path barely fitted yet), and a pause it caused would
        only be undone by the words. Not when the echo check last said "echo" (the linear
        removal takes more off it than a second voice allows): that is the tutor's residual
        echo at a reply's start, which paused a reply on its own voice for ~1 s (`bench
        echo`, after a collision) and once made a "Yeah." over it a false stop; it stays
        ducked, and its words decide at its end (the tutor's own: the tutor goes on)."""
        if self._floor is not None and sound is not None and self._floor.frame(sound, echo_removed_db):
            self._floor.why = "the floor by its sound"
            return True
        if self.heard * FRAME_MS < self._options.backchannel_max_ms:
            return False
        # A hum or a noise never asked the check on the way: ask it now. After a cough AEC3
        # left 36 frames of hum-like residual echo that paused and then cut a reply.
        return self._floor is None or not self._floor.tutor_echo(echo_removed_db)

    def _no_sentence(self, sounds: list[FrameSound]) -> bool:
        """No learner's sentence is in this voice: the echo check last called it the
        tutor's own echo (Whisper made "4 words" of the residual echo round a looped-back
        "Mm-hmm.", and 6 of 36 hum-like frames of it after a cough: each cut a reply), or
        `sounds` are a hum (floor.py) and the voice is still no longer than a backchannel can
        be (`backchannel_max_ms`, as the VAD heard it) - longer speech is never a backchannel,
        whatever it sounds like (a low voice may look like a hum)."""
        if self._floor is not None and self._floor.echo:
            return True
        return self.heard * FRAME_MS < self._options.backchannel_max_ms and sounds_like(sounds) == "hum"

    def words_so_far(self, text: str, tutor_said: str) -> bool:
        """Its words at `words_at_ms` of voice are in: True when they ask for the floor."""
        return self.undecided and over_the_tutor(text, tutor_said, self._options.words_at_ms,
                                                 so_far=True) == INTERRUPTION

    def ended(self, text: str, tutor_said: str) -> tuple[str, str]:
        """The speech ended undecided: (what it was, the backchannel words to keep) -
        INTERRUPTION, BACKCHANNEL or NOTHING (turn_taking.over_the_tutor)."""
        voiced_ms = self.voiced_ms
        what = over_the_tutor(text, tutor_said, voiced_ms,
                              no_sentence=self._floor is not None and self._no_sentence(self._floor.sounds))
        return what, backchannel_heard(text, voiced_ms) if what == BACKCHANNEL else ""

    def stop(self) -> bool:
        """Decided (or forgotten): True when it was undecided (the tutor was ducked, and
        paused when `paused` was)."""
        was = self.voiced is not None
        self.voiced, self._floor, self.paused = None, None, False
        return was
