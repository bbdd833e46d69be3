"""The TTS/playback thread of a live call: the tutor's sentences -> Piper -> the speaker.

Sentences of one turn (a generation number from TurnCounter) are synthesised one by one
while earlier ones play. Each sentence is tagged (generation, index) so the player's
exact per-tag sample counts tell what the learner actually heard when a barge-in cut
the reply (`heard()`). A sentence whose synthesis fails is skipped; the rest go on.
Without a player (no speaker) sentences count as heard as soon as they are shown.
"""
from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)


@dataclass
class _Sentence:
    text: str
    samples: int = 0  # synthesised so far (at the TTS rate)
    synthesised: bool = False
    failed: bool = False
    shown: bool = False


@dataclass
class _Turn:
    sentences: list[_Sentence] = field(default_factory=list)
    cut: bool = False
    first_audio: float | None = None  # perf_counter of the first sample handed out


class Speaker:
    def __init__(self, tts: Any, player: Any | None,
                 on_start: Callable[[int, str, float], None],
                 on_problem: Callable[[str, str], None] | None = None) -> None:
        self._tts = tts  # a TextToSpeech, or a zero-argument factory (loaded on first use)
        self.player = player
        self._on_start = on_start
        self._on_problem = on_problem or (lambda kind, message: None)
        self._turns: dict[int, _Turn] = {}
        self._cond = threading.Condition()
        self._queue: queue.Queue = queue.Queue()
        self._working = False  # the thread holds a sentence (synthesising it)
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="tts-playback", daemon=True)
        self._thread.start()

    @property
    def tts(self) -> Any:
        if callable(self._tts) and not hasattr(self._tts, "synthesize"):
            self._tts = self._tts()
        return self._tts

    # -- engine side -------------------------------------------------------------------
    def say(self, gen: int, text: str) -> None:
        with self._cond:
            turn = self._turns.setdefault(gen, _Turn())
            if turn.cut or self._closed:
                return
            turn.sentences.append(_Sentence(text))
            index = len(turn.sentences) - 1
        self._queue.put((gen, index))

    def wait_done(self, gen: int, timeout: float | None = None) -> bool:
        """Until every sentence of `gen` was played (or the turn was cut)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            while not self._done(gen):
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return False
                self._cond.wait(0.2 if left is None else min(left, 0.2))
            return True

    def heard(self, gen: int) -> tuple[str, bool]:
        """(text the learner heard, whether the turn was cut short)."""
        with self._cond:
            turn = self._turns.get(gen)
            if turn is None:
                return "", False
            parts: list[str] = []
            for index, sentence in enumerate(turn.sentences):
                if sentence.failed:
                    continue
                if self.player is None:
                    if sentence.shown:
                        parts.append(sentence.text)
                    continue
                played = self.player.played((gen, index))
                if played <= 0:
                    break
                if sentence.synthesised and played >= sentence.samples:
                    parts.append(sentence.text)
                    continue
                words = sentence.text.split()
                share = played / max(1, sentence.samples)
                n = min(len(words), max(1, round(len(words) * share)))
                parts.append(" ".join(words[:n]))
                break
            return " ".join(parts), turn.cut

    def first_audio(self, gen: int) -> float | None:
        with self._cond:
            turn = self._turns.get(gen)
            return turn.first_audio if turn else None

    def forget(self, gen: int) -> None:
        with self._cond:
            self._turns.pop(gen, None)

    # -- audio side ----------------------------------------------------------------------
    @property
    def speaking(self) -> bool:
        """Anything queued, being synthesised or playing."""
        with self._cond:
            if self._working or not self._queue.empty():
                return True
        return bool(self.player is not None and self.player.busy)

    def cut(self, gen: int | None = None) -> None:
        """Barge-in: drop the queue and what the player holds; mark the turn cut."""
        with self._cond:
            for g, turn in self._turns.items():
                if gen is None or g == gen:
                    turn.cut = True
            if self.player is not None:
                self.player.clear()
            self._cond.notify_all()

    def notify(self) -> None:
        """The player went idle or started a sentence: wake waiters."""
        with self._cond:
            self._cond.notify_all()

    def started(self, tag: Any, t: float) -> None:
        """Player callback (notifier thread): the first sample of `tag` went out."""
        gen, index = tag
        with self._cond:
            turn = self._turns.get(gen)
            if turn is None or turn.cut:
                return
            if turn.first_audio is None:
                turn.first_audio = t
            sentence = turn.sentences[index]
        self._on_start(gen, sentence.text, t)
        with self._cond:  # only now may the turn count as done (TutorSentence is out)
            sentence.shown = True
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            for turn in self._turns.values():
                turn.cut = True
            self._cond.notify_all()
        self._queue.put(None)
        self._thread.join(timeout=5)

    # -- internals -----------------------------------------------------------------------
    def _done(self, gen: int) -> bool:
        turn = self._turns.get(gen)
        if turn is None or turn.cut or self._closed:
            return True
        if any(not (s.synthesised or s.failed) for s in turn.sentences):
            return False
        if self.player is None or self.player.finished.is_set():
            return True
        # Every sentence announced (its TutorSentence went out) and the player drained.
        return all(s.shown or s.failed for s in turn.sentences) and not self.player.busy

    def _cut(self, gen: int) -> bool:
        with self._cond:
            turn = self._turns.get(gen)
            return turn is None or turn.cut or self._closed

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is None:
                return
            gen, index = item
            with self._cond:
                self._working = True
            try:
                self._speak(gen, index)
            finally:
                with self._cond:
                    self._working = False
                    self._cond.notify_all()

    def _speak(self, gen: int, index: int) -> None:
        if self._cut(gen):
            return
        with self._cond:
            sentence = self._turns[gen].sentences[index]
        if self.player is not None and self.player.finished.is_set():
            # The output stream died (speaker unplugged): go on as text only.
            log.warning("the speaker is gone: replies are shown as text")
            with self._cond:
                self.player = None
            self._on_problem("device-lost", "The speaker was disconnected: replies are shown as text.")
        if self.player is None:
            sentence.synthesised = True
            self.started((gen, index), time.perf_counter())
            return
        try:
            for chunk in self.tts.synthesize(sentence.text):
                if self._cut(gen):
                    return
                with self._cond:
                    sentence.samples += len(chunk)
                self.player.play(chunk, (gen, index))
        except Exception as exc:  # noqa: BLE001 - one bad sentence must not end the reply
            log.warning("speech synthesis failed for %r: %s", sentence.text, exc)
            with self._cond:
                sentence.failed = True
            self._on_problem("tts", f"could not speak one sentence ({type(exc).__name__}); skipped")
            return
        with self._cond:
            sentence.synthesised = True
            if sentence.samples == 0:
                sentence.failed = True  # nothing speakable (e.g. only symbols)
