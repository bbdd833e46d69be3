"""One object per tutor turn: the single interruption path of a live call.

Every stage of a turn asks the same `TutorTurn`: the turns thread (streaming the model,
deciding when to store the learner's words), the TTS/playback thread (whether to keep
synthesising, whether it may start playing), the player's notifier (which sentence
started), and the audio thread, which sends the only interruption there is:
`TurnControl.interrupt(reason)`. All turns share one lock (a Condition), so "cancelled",
"committed", the sentences and what was played change together and waiters wake on any
change - nothing polls.

A turn is *speculative* when the learner may still be talking (turn-taking ended it
early): it may stream and synthesise, but it is not shown, stored or played until it is
committed - at its first sample, or for a *held* one not before it is released. `commit()` and `cancel()` race by design; whichever comes first wins:

    speculative --commit()--> committed --cancel()--> cancelled (barge-in: keep what was heard)
         +--cancel()--> cancelled (retracted: nothing of it is kept)

A committed turn may also be *paused* (`TurnControl.pause`: the learner's voice says they
take the floor, their words are not in yet) and then resumed (`resume`: it was a
backchannel, a cough, the tutor's own echo) or cancelled (`interrupt`: it was the floor).
A paused turn is live: it is neither cancelled nor interrupted until its words say so.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

# Why a turn was cancelled (one word each; logs and tests read them).
BARGE_IN, RESUMED, SUPERSEDED, STOPPED = "barge-in", "resumed", "superseded", "stopped"


@dataclass
class Sentence:
    text: str
    samples: int = 0  # synthesised so far (at the TTS rate)
    synthesised: bool = False
    failed: bool = False
    shown: bool = False  # its first sample went out and TutorSentence was emitted


@dataclass(eq=False)
class TutorTurn:
    """Read its fields under `control.lock`, or through the methods (which take it)."""

    gen: int
    control: "TurnControl"
    speculative: bool = False
    on_commit: Callable[["TutorTurn"], None] | None = None
    sentences: list[Sentence] = field(default_factory=list)
    first_audio: float | None = None  # perf_counter of the first sample handed out
    backchannels: list[str] = field(default_factory=list)  # "mm-hm" heard over this turn
    paused: bool = False  # its playback holds: the learner may be taking the floor (TurnControl.pause)
    resumes: int = 0  # pauses it resumed from (the learner only said "mm-hm", or nothing)
    _committed: bool = False
    _cancelled: bool = False
    held: bool = False  # speculative and not to play yet (`release`, `commit`); under the lock
    reason: str = ""
    finished: bool = False  # the engine is done with it (played out, or cancelled and unwound)

    # -- the cancel protocol (what model.stream() and the engine read) ------------------
    @property
    def cancelled(self) -> bool:
        with self.control.lock:
            return self._cancelled

    @property
    def committed(self) -> bool:
        with self.control.lock:
            return self._committed

    def wait(self, timeout: float | None = None) -> bool:
        """Until cancelled (True) or `timeout` (False)."""
        with self.control.lock:
            return self.control.lock.wait_for(lambda: self._cancelled, timeout)

    def wait_committed(self) -> bool:
        """Until committed (True) or cancelled (False)."""
        with self.control.lock:
            self.control.lock.wait_for(lambda: self._committed or self._cancelled)
            return self._committed

    def cancel(self, reason: str) -> bool:
        """True when this call stopped a live turn. A speculative turn cancelled before its
        commit leaves no trace; a committed one keeps what was heard."""
        with self.control.lock:
            if self._cancelled or self.finished:
                return False
            if reason == RESUMED and self._committed:
                return False  # too late to retract: the learner's next words are a new turn
            self._cancelled, self.reason = True, reason
            self.control.lock.notify_all()
        log.debug("turn %d cancelled: %s", self.gen, reason)
        return True

    def release(self) -> None:
        """A held turn may play: its first sample commits it (`play`)."""
        with self.control.lock:
            self.held = False
            self.control.lock.notify_all()

    def play(self) -> bool:
        """Its next sample is about to play: committed here, once a hold is released (the
        TTS thread waits; a cancel wakes it). False: cancelled first."""
        with self.control.lock:
            self.control.lock.wait_for(lambda: not self.held or self._cancelled or self._committed)
        return self.commit()

    def commit(self) -> bool:
        """Speculative -> committed (runs `on_commit` once, before anything plays). False when
        it was cancelled first. A hold ends with it."""
        with self.control.lock:
            if self._cancelled:
                return False
            if self._committed:
                return True
            self._committed, self.held = True, False
            hook = self.on_commit
            self.control.lock.notify_all()
        if hook is not None:
            try:
                hook(self)
            except Exception:  # noqa: BLE001 - a listener bug must not stop the turn
                log.exception("turn commit hook failed")
        return True

    @property
    def retracted(self) -> bool:
        """Cancelled before it was ever committed: nothing of it may be kept or shown."""
        with self.control.lock:
            return self._cancelled and not self._committed

    @property
    def interrupted(self) -> bool:
        """Cut by the learner after it was committed."""
        with self.control.lock:
            return self._cancelled and self._committed

    # -- sentences (engine adds, TTS thread fills, notifier marks shown) -----------------
    def add_sentence(self, text: str) -> int | None:
        with self.control.lock:
            if self._cancelled:
                return None
            self.sentences.append(Sentence(text))
            self.control.lock.notify_all()
            return len(self.sentences) - 1

    def update(self, index: int, *, samples: int = 0, synthesised: bool = False, failed: bool = False) -> None:
        with self.control.lock:
            s = self.sentences[index]
            s.samples += samples
            s.synthesised = s.synthesised or synthesised
            s.failed = s.failed or failed
            self.control.lock.notify_all()

    def started(self, index: int, t: float) -> str | None:
        """The first sample of sentence `index` went out at `t`: its text, or None when the
        turn was cancelled meanwhile (nothing more is shown)."""
        with self.control.lock:
            if self._cancelled:
                return None
            if self.first_audio is None:
                self.first_audio = t
            return self.sentences[index].text

    def shown(self, index: int) -> None:
        with self.control.lock:
            self.sentences[index].shown = True
            self.control.lock.notify_all()

    def heard(self, played: Callable[[tuple[int, int]], int] | None) -> str:
        """The text the learner heard: whole sentences, then the played share of the one
        that was cut. `played(tag)` gives samples handed to the device; None = no speaker
        (a shown sentence counts as heard)."""
        with self.control.lock:
            parts: list[str] = []
            for index, s in enumerate(self.sentences):
                if s.failed:
                    continue
                if played is None:
                    if s.shown:
                        parts.append(s.text)
                    continue
                n_played = played((self.gen, index))
                if n_played <= 0:
                    break
                if s.synthesised and n_played >= s.samples:
                    parts.append(s.text)
                    continue
                words = s.text.split()
                share = n_played / max(1, s.samples)
                n = min(len(words), max(1, round(len(words) * share)))
                parts.append(" ".join(words[:n]))
                break
            return " ".join(parts)


class TurnControl:
    """Owns the current tutor turn and the one lock of all turns."""

    def __init__(self) -> None:
        self.lock = threading.Condition()
        self._gen = 0
        self._current: TutorTurn | None = None
        self._closed = False

    def begin(self, speculative: bool = False, on_commit: Callable[[TutorTurn], None] | None = None,
              held: bool = False) -> TutorTurn:
        """A new turn; the previous one, if still live, is superseded. `held`: a speculative
        turn that may stream and synthesise but not play until released or committed."""
        with self.lock:
            previous = self._current
            self._gen += 1
            turn = TutorTurn(self._gen, self, speculative=speculative, on_commit=on_commit,
                             held=held and speculative)
            turn._cancelled = self._closed
            if not speculative:
                turn._committed = True
            self._current = turn
        if previous is not None:
            previous.cancel(SUPERSEDED)
        if not speculative and on_commit is not None:
            on_commit(turn)  # committed from the start
        return turn

    @property
    def current(self) -> TutorTurn | None:
        with self.lock:
            return self._current

    def interrupt(self, reason: str = BARGE_IN) -> TutorTurn | None:
        """The interruption message: cancel the current turn if it is live (a pause ends
        with it). Returns it when this call stopped it."""
        turn = self.current
        if turn is not None and turn.cancel(reason):
            with self.lock:
                turn.paused = False
            return turn
        return None

    def pause(self) -> TutorTurn | None:
        """The pause message: the current turn's playback holds (the learner seems to take
        the floor; their words decide). It stays live: `resume()` or `interrupt()` ends the
        pause. Returns the turn it paused."""
        with self.lock:
            turn = self._current
            if turn is None or turn._cancelled or turn.finished or not turn._committed:
                return None
            turn.paused = True
            self.lock.notify_all()
        log.debug("turn %d paused", turn.gen)
        return turn

    def resume(self) -> TutorTurn | None:
        """The resume message: the paused turn plays on (it was only a backchannel, or
        nothing), never marked interrupted. Returns the turn it resumed."""
        with self.lock:
            turn = self._current
            if turn is None or not turn.paused:
                return None
            turn.paused = False
            turn.resumes += 1
            self.lock.notify_all()
        log.debug("turn %d resumed", turn.gen)
        return turn

    def finish(self, turn: TutorTurn) -> None:
        with self.lock:
            turn.finished = True
            if self._current is turn:
                self._current = None
            self.lock.notify_all()

    def notify(self) -> None:
        """Something outside the turns changed (the player drained or died): wake waiters."""
        with self.lock:
            self.lock.notify_all()

    def close(self) -> None:
        with self.lock:
            self._closed = True
            turn = self._current
        if turn is not None:
            turn.cancel(STOPPED)
        self.notify()

    @property
    def closed(self) -> bool:
        with self.lock:
            return self._closed
