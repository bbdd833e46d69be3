"""Speech over the tutor on the live microphone: the Listener's part that acts on it.

Interruption (interruption.py) decides from the audio and the words; this applies its
decisions to the call - ducks, pauses, resumes or stops the tutor, asks for the words so
far - and awaits the words of speech that the silence window ended undecided without
holding up the audio thread: on a slow CPU the STT worker is seconds behind, and an audio
thread blocked for those words fell as far behind the microphone (its late frames were
then paired with the wrong far end, and counted as talking on over a paused tutor).

It shares the Listener's recent frames (MicFrames), its segmenting and its transcript
source, and runs on the audio thread only, called by the Listener (listener.py).
"""
from __future__ import annotations

import logging
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TYPE_CHECKING, Any, Protocol

from tutor_app.call import events as ev
from tutor_app.call.listen.floor import RECENT_FRAMES, FrameSound, frame_sound
from tutor_app.call.listen.interruption import Interruption, Over
from tutor_app.call.listen.overlap import EXPECT
from tutor_app.call.listen.turn_taking import BACKCHANNEL, INTERRUPTION
from tutor_app.call.options import LoopOptions, frames

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    import numpy as np

    from tutor_app.call.listen.endpointing import TranscriptSource
    from tutor_app.call.listen.frames import MicFrames
    from tutor_app.call.listen.segmenting import Segmenting

log = logging.getLogger(__name__)

# The longest the words of speech over the tutor that ended by the silence window alone
# are waited for (they are nearly always in by then: asked at its first pause). The audio
# thread goes on meanwhile, and blocks for them only when voice comes before they do.
WORDS_WAIT_S = 5.0
NOT_HEARD_OVER_TUTOR = ("Speech recognition failed on what you said over the tutor: "
                        "say it again if it was meant for the tutor.")

Span = tuple[int, int]  # frames [start, end) of an utterance, by segmenter index


class OverTutorPort(Protocol):
    """What speech over the tutor may do to the call (the Listener's port has it all)."""

    def emit(self, event: ev.CallEvent) -> None: ...
    def interrupt(self) -> None: ...
    def pause(self) -> None: ...
    def resume(self) -> None: ...
    def duck(self, on: bool) -> None: ...
    def backchannel(self, text: str) -> None: ...
    def tutor_words(self) -> str: ...


class OverTheTutor:
    def __init__(self, options: LoopOptions, port: OverTutorPort, mic: MicFrames, seg: Segmenting,
                 transcripts: TranscriptSource, count: Callable[[str], None]) -> None:
        self._options = options
        self._port = port
        self._mic = mic
        self._seg = seg
        self._transcripts = transcripts
        self._count = count  # how the utterance ended (the Listener's `ends`)
        self._over = Interruption(options.interruption, frames(options.endpointing.segmenter().min_speech_ms))
        self.overlapped = False  # the utterance began while the tutor was audible
        self._words_so_far: Any = None  # Future of its words, asked at `words_at_ms`
        # Speech the silence window ended before its words came: (its span, their Future,
        # the frame they are due by, why it ended). Decided when they come.
        self._awaited: tuple[Span, Any, int, str] | None = None

    @property
    def undecided(self) -> bool:
        """Speech over the tutor, not yet decided (the tutor is ducked, maybe paused)."""
        return self._over.undecided

    @property
    def awaited(self) -> bool:
        """The words of speech that ended undecided are still awaited (its frames are wanted)."""
        return self._awaited is not None

    def words(self, start: int, end: int) -> np.ndarray:
        """Frames [start, end) for STT, the judge and the emotion model (MicFrames.words):
        speech over the tutor still undecided is cut to its voice alone."""
        return self._mic.words(start, end, over_tutor=self.overlapped, floor=not self._over.undecided)

    def started(self, start: int, audible: bool, recent: Iterable[tuple[np.ndarray, float, Any]]) -> None:
        """Speech was confirmed from frame `start`; `audible`: the tutor is heard over it (full
        duplex); `recent`: the latest (frame, VAD probability, echo reference)s."""
        self._words_so_far = None
        self.overlapped = audible
        hidden = 0  # voice before the VAD's start that AEC3 hid counts too
        sounds: list[FrameSound] = []  # what its voice so far sounded like (floor.py)
        if audible and self._options.interruption.enabled:
            hidden = self._mic.hidden_before(start)
            threshold = self._options.endpointing.threshold
            sounds = [frame_sound(f) for f, p, _ in recent if p >= threshold]
        if self._over.started(audible, hidden, sounds):
            log.debug("speech over the tutor: confirmed (%d frames AEC3 hid before it)", hidden)
            self._port.duck(True)

    def voiced(self, index: int) -> None:
        """Voiced frame `index` of the utterance: its sound and the echo check (floor.py)."""
        if not self._over.undecided:
            return
        recent = max(self._seg.start, index + 1 - RECENT_FRAMES)
        decision = self._over.voice(frame_sound(self._mic.cut(index, index + 1)),
                                    lambda: self._mic.echo_removed_db(recent, index + 1),
                                    self._mic.tutor_played(index))
        if decision == Over.INTERRUPT:
            log.debug("speech over the tutor: %d since the pause, an interruption; %s",
                      self._over.after, self._over.profile)
            self.interrupt(index)
        elif decision == Over.PAUSE:
            log.debug("speech over the tutor: %s (%s): the tutor pauses", self._over.profile, self._over.why)
            self._port.pause()
            self._seg.hold(index)  # the echo was hiding the voice: no pause so far
        elif decision == Over.ASK_WORDS:
            start = self._seg.start
            self._words_so_far = self._transcripts.request(start, index + 1, self.words(start, index + 1), EXPECT)

    def quiet(self) -> None:
        """An unvoiced frame inside the utterance."""
        self._over.quiet()

    def words_in(self) -> None:
        """Its words at `words_at_ms` of voice are in (any frame): they may take the floor."""
        future = self._words_so_far
        if future is None or not future.done():
            return
        self._words_so_far = None
        words = transcript_text(future, "the words so far of speech over the tutor")
        if words is None:
            return  # not read: its voice and its words at the end still decide
        if self._over.undecided and self._over.words_so_far(words, self._port.tutor_words()):
            log.debug("speech over the tutor: %d words so far, an interruption; %s (%s)", len(words.split()),
                      self._over.profile, self._over.why)
            self.interrupt(self._seg.index - 1)

    def interrupt(self, index: int) -> None:
        """Speech over the tutor stops it. The silence so far is no pause (AEC3 hid a learner
        who talked on over the tutor): it is counted afresh from frame `index`, free of echo."""
        self._over.stop()
        self._port.interrupt()
        self._port.duck(False)
        self._seg.hold(index)

    def ended_with(self, transcript: Any) -> bool:
        """Its end was judged with `transcript` (a done Future): see `ended`."""
        return self.ended(transcript_text(transcript, "speech over the tutor"))

    def ended(self, text: str | None) -> bool:
        """Speech over the tutor ended undecided (paused or not): True when it was an
        interruption and is a turn, False when it is over (a paused tutor resumes).
        `text` None: its words could not be read - the learner is told, the tutor goes on."""
        if text is None:
            what, heard = "not heard", ""
            self._port.emit(ev.Problem("other", NOT_HEARD_OVER_TUTOR))
        else:
            what, heard = self._over.ended(text, self._port.tutor_words())
            log.debug("speech over the tutor ended: %d words, %s; %s (%s)", len(text.split()), what,
                      self._over.profile, self._over.why)
        if what == INTERRUPTION:
            self.interrupt(self._seg.index - 1)
            return True
        self.end()
        self._count(what)
        if what == BACKCHANNEL:
            self._port.backchannel(heard)
        self._seg.end_now(what)
        return False

    def end(self) -> None:
        """Speech over the tutor was not an interruption (or is forgotten): the tutor goes
        on at full volume, and resumes if it had paused."""
        paused = self._over.paused
        if self._over.stop():
            self._port.duck(False)
            if paused:
                self._port.resume()

    def reset(self) -> None:
        """Forget it (the utterance in flight is forgotten)."""
        self._awaited = None
        self.end()

    def await_words(self, span: Span, words: Any, reason: str) -> None:
        """The silence window ended it undecided: its words (`words`, a Future) decide when
        they come (`take_words`). Not waited for here: on a slow CPU the STT worker is
        seconds behind, and the audio thread blocked for them fell as far behind."""
        self._awaited = (span, words, self._seg.index + frames(WORDS_WAIT_S * 1000), reason)

    def take_words(self, block: bool = False) -> tuple[Span, str] | None:
        """The awaited words decide once they are in, at their due frame (not heard), or now
        when `block` (waiting for them, bounded). An interruption: (its span, why it ended),
        the learner's turn to hand on."""
        awaited = self._awaited
        if awaited is None:
            return None
        span, words, due, reason = awaited
        if not (words.done() or block or self._seg.index >= due):
            return None
        self._awaited = None
        if words.done() or block:
            text = transcript_text(words, "speech over the tutor", wait=WORDS_WAIT_S)
        else:
            log.warning("speech recognition gave no answer within %.0f s on speech over the tutor", WORDS_WAIT_S)
            text = None
        return (span, reason) if self.ended(text) else None


def transcript_text(future: Any, what: str, wait: float = WORDS_WAIT_S) -> str | None:
    """The words of a transcript request, or None when speech recognition failed (or gave
    no answer within `wait` seconds): logged as what it is, never as no words."""
    try:
        result = future.result(timeout=wait)  # the audio thread never waits for ever
    except FutureTimeout:
        log.warning("speech recognition gave no answer within %.0f s on %s", wait, what)
        return None
    except Exception as exc:  # noqa: BLE001 - the caller tells the learner, or other signals decide
        log.warning("speech recognition failed on %s: %s", what, type(exc).__name__)
        return None
    return (getattr(result, "text", "") or "").strip()
