"""The TTS/playback thread of a live call: the tutor's sentences -> Piper -> the speaker.

Sentences of one `TutorTurn` are synthesised one by one while earlier ones play; the
first plays without Piper's lead silence (speech/tts.py `without_lead`). Each is
tagged (generation, index) so the player's exact per-tag sample counts tell what the
learner actually heard when a barge-in cut the reply (`heard()`). A sentence whose
synthesis fails is skipped; the rest go on. Without a player (no speaker) sentences
count as heard as soon as they are shown.

Interruption is the turn's business (call/tutor_turn.py): this thread checks
`turn.cancelled` between chunks (a pause only holds the player: synthesis goes on), and
a speculative turn is committed here, just before its first sample would play (a held one
waits for its release: its first sentence is synthesised by then) - or dropped if the
learner went on talking first.

The speaker owns the player for the whole call: the reference never changes. When the
output device dies, the TTS thread marks it lost under the turns' lock and `player` reads
None from then on; the audio thread, which may hold the object a moment longer, can still
call it (a dead player's `clear`, `set_gain` and `busy` are harmless). `close()` ends the
TTS thread first, then closes the player (and with it its notifier thread).
A bug on the TTS thread or in a "sentence started" callback (the notifier thread) ends the
call through `on_failure` instead of leaving a dead thread behind.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any, cast

from tutor_app.call.tutor_turn import TurnControl, TutorTurn
from tutor_app.core.protocols import TextToSpeech
from tutor_app.speech.tts import without_lead

log = logging.getLogger(__name__)


class Speaker:
    def __init__(self, tts: TextToSpeech | Callable[[], TextToSpeech], player: Any | None,
                 control: TurnControl, on_start: Callable[[TutorTurn, str, float], None],
                 on_problem: Callable[[str, str], None] | None = None,
                 on_failure: Callable[[str, BaseException], None] | None = None) -> None:
        """`player`: a started speech/playback.Player or None (text only), handed over: the
        speaker listens to it and closes it. `on_failure(where, exc)`: a bug on one of its
        threads (the call ends)."""
        self._tts = tts  # a TextToSpeech, or a zero-argument factory (loaded on first use)
        self._player = player  # never reassigned: see the module's docstring
        self._lost = False  # the output device died (under control.lock)
        self.control = control
        self._on_start = on_start
        self._on_problem = on_problem or (lambda kind, message: None)
        self._on_failure = on_failure or (lambda where, exc: None)
        self._turns: dict[int, TutorTurn] = {}  # by generation: the player's tags name them
        self._queue: queue.Queue[tuple[TutorTurn, int] | None] = queue.Queue()  # None: stop
        self._working: TutorTurn | None = None  # the turn whose sentence is being synthesised
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="tts-playback", daemon=True)
        self._thread.start()
        if player is not None:
            player.listen(self.started, control.notify)

    @property
    def player(self) -> Any | None:
        """The player while it works; None without one or once its device died."""
        return None if self._lost else self._player

    @property
    def tts(self) -> TextToSpeech:
        if callable(self._tts) and not hasattr(self._tts, "synthesize"):
            self._tts = self._tts()
        return cast(TextToSpeech, self._tts)  # a factory was called above

    # -- turns side ---------------------------------------------------------------------
    def say(self, turn: TutorTurn, text: str) -> None:
        with self.control.lock:
            if self._closed:
                return
            self._turns[turn.gen] = turn
        index = turn.add_sentence(text)
        if index is not None:
            self._queue.put((turn, index))

    def wait_done(self, turn: TutorTurn) -> None:
        """Until every sentence of `turn` was played, or the turn was cancelled."""
        with self.control.lock:
            self.control.lock.wait_for(lambda: self._done(turn))

    def heard(self, turn: TutorTurn) -> str:
        player = self.player
        return turn.heard(player.played if player is not None else None)

    def forget(self, turn: TutorTurn) -> None:
        with self.control.lock:
            if self._turns.get(turn.gen) is turn:
                del self._turns[turn.gen]

    # -- audio side ----------------------------------------------------------------------
    def audible(self, turn: TutorTurn | None) -> bool:
        """Is `turn` (committed, not cancelled) being synthesised or played right now?"""
        if turn is None or not turn.committed or turn.cancelled:
            return False
        with self.control.lock:
            # `close()` may have queued its None already: skip it, it is no sentence
            if self._working is turn or any(item is not None and item[0] is turn for item in list(self._queue.queue)):
                return True
        player = self.player
        return bool(player is not None and player.busy)

    def stop_audio(self) -> None:
        """Barge-in: drop what the player holds (the turn itself was cancelled first)."""
        player = self.player
        if player is not None:
            player.clear()
        self.control.notify()

    def pause_audio(self) -> None:
        """The turn paused (the audio thread): the player holds what it has, silent."""
        player = self.player
        if player is not None:
            player.pause()

    def resume_audio(self, back_s: float = 0.0) -> None:
        """The turn resumed: the player plays on from a word gap within `back_s` before
        where it paused (speech/playback.py Player.resume)."""
        player = self.player
        if player is not None:
            player.resume(back_s)
        self.control.notify()

    def set_gain(self, gain: float) -> None:
        """Ducking while the learner may be interrupting (the audio thread)."""
        player = self.player
        if player is not None:
            player.set_gain(gain)

    def started(self, tag: Any, t: float) -> None:
        """Player callback (notifier thread): the first sample of `tag` went out."""
        try:
            gen, index = tag
            with self.control.lock:
                turn = self._turns.get(gen)
            if turn is None:
                return
            text = turn.started(index, t)
            if text is None:
                return
            self._on_start(turn, text, t)
            turn.shown(index)  # only now may the turn count as done (TutorSentence is out)
        except Exception as exc:  # noqa: BLE001 - the catch-all of the notifier thread: the call ends
            self._on_failure("playback", exc)

    def close(self, timeout: float = 5.0) -> None:
        """The TTS thread ends, then the player closes (idempotent)."""
        with self.control.lock:
            self._closed = True
            self.control.lock.notify_all()
        self._queue.put(None)
        if self._thread is not threading.current_thread():
            self._thread.join(timeout=timeout)
            if self._thread.is_alive():
                log.warning("the speech synthesis thread did not stop in %.0f s", timeout)
        if self._player is not None:
            self._player.close()

    # -- internals -----------------------------------------------------------------------
    def _done(self, turn: TutorTurn) -> bool:
        """Under control.lock."""
        if turn._cancelled or self._closed:
            return True
        sentences = turn.sentences
        if any(not (s.synthesised or s.failed) for s in sentences):
            return False
        player = self.player
        if player is None:
            # Text only: the TTS thread shows a sentence right after marking it synthesised;
            # done once every sentence is shown, or what was "heard" would miss the last one.
            return all(s.shown or s.failed for s in sentences)
        if player.finished.is_set():
            return True
        # Every sentence announced (its TutorSentence went out) and the player drained.
        return all(s.shown or s.failed for s in sentences) and not player.busy

    def _run(self) -> None:
        try:
            while True:
                item = self._queue.get()
                if item is None:
                    return
                turn, index = item
                with self.control.lock:
                    self._working = turn
                try:
                    self._speak(turn, index)
                finally:
                    with self.control.lock:
                        self._working = None
                        self.control.lock.notify_all()
        except Exception as exc:  # noqa: BLE001 - the catch-all of the TTS thread: the call ends
            with self.control.lock:
                self._closed = True  # nothing speaks any more: waiters on a turn wake now
                self.control.lock.notify_all()
            self._on_failure("speech", exc)

    def _speak(self, turn: TutorTurn, index: int) -> None:
        if turn.cancelled or self._closed:
            return
        text = turn.sentences[index].text
        player = self.player
        if player is not None and player.finished.is_set():
            # The output stream died (speaker unplugged): go on as text only.
            log.warning("the speaker is gone: replies are shown as text")
            with self.control.lock:
                self._lost = True
            player = None
            self._on_problem("device-lost", "The speaker was disconnected: replies are shown as text.")
        if player is None:
            turn.update(index, synthesised=True)
            if turn.play():
                self.started((turn.gen, index), time.perf_counter())
            return
        samples = 0
        try:
            for chunk in self.tts.synthesize(text):
                if turn.cancelled or not turn.play():  # a speculative turn commits at its first sample
                    return
                if index == 0 and samples == 0:  # the reply's first sound comes as soon as it can
                    chunk = without_lead(chunk, self.tts.sample_rate)
                samples += len(chunk)
                turn.update(index, samples=len(chunk))
                player.play(chunk, (turn.gen, index))
        except Exception as exc:  # noqa: BLE001 - one bad sentence must not end the reply
            log.warning("speech synthesis failed for a sentence: %s", exc)
            turn.update(index, failed=True)
            self._on_problem("tts", f"could not speak one sentence ({type(exc).__name__}); skipped")
            return
        # nothing speakable (e.g. only symbols) counts as failed, so it is not waited for
        turn.update(index, synthesised=True, failed=samples == 0)
