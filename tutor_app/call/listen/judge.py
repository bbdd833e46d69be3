"""The end-of-turn judge a live call asks at a short pause (call/listen/listener.py): Smart
Turn on the audio so far plus the words so far, combined by speech/end_of_turn.py. The
audio is heard while the words are still being decoded (`judge_later`), once Whisper's
encoder is done with the two cores.

Loaded once per app. When the Smart Turn model cannot load, the app has no judge at all
and the live call keeps the plain VAD rule (a fixed silence ends the turn), as the issue
asks; a model that fails on one turn counts as a missing signal for that turn only.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from typing import TYPE_CHECKING, Any

from tutor_app.speech.end_of_turn import EndOfTurnOptions, Verdict, decide

if TYPE_CHECKING:
    import numpy as np

log = logging.getLogger(__name__)


class EndOfTurnJudge:
    """`judge(audio_16k, transcript) -> Verdict`; thread-safe for the call's one judge thread."""

    def __init__(self, model: Any, options: EndOfTurnOptions | None = None) -> None:
        self.model = model  # speech/smart_turn.py SmartTurn
        # Cautious by default: a full-looking sentence the audio model doubts waits. Trusting
        # such sentences cut 2 of 18 pause clips in `bench turns` (Whisper hears "... by"
        # as "... bye!"); waiting cut none but let 14 of 31 turns run to the thinking time.
        self.options = options or EndOfTurnOptions()

    def __call__(self, audio: np.ndarray, transcript: str) -> Verdict:
        return self.decide(self.hear(audio), transcript)

    def hear(self, audio: np.ndarray) -> float | None:
        """The audio half: Smart Turn's probability, None when the model failed."""
        try:
            return float(self.model.predict(audio))
        except Exception as exc:  # noqa: BLE001 - one failed decision: the words decide
            log.warning("end-of-turn model failed on a turn (%s): the words decide", type(exc).__name__)
            return None

    def decide(self, probability: float | None, transcript: str) -> Verdict:
        """The two halves together (pure, cheap)."""
        return decide(probability, transcript, self.options)

    def warm_up(self) -> None:
        self.model.warm_up()


def load_judge(registry: Any) -> EndOfTurnJudge | None:
    """The judge, or None (VAD-only turn-taking) when the model cannot load."""
    from tutor_app.speech.smart_turn import load_smart_turn

    try:
        return EndOfTurnJudge(load_smart_turn(registry))
    except Exception as exc:  # noqa: BLE001 - missing, corrupt, onnxruntime trouble: same fallback
        log.warning("end-of-turn model unavailable (%s): a fixed silence ends each turn", exc)
        return None


# Longest wait for the words' encoder before the judge hears anyway (a decode queued
# behind a stale one): its verdict is not wanted before the words are in.
ENCODER_WAIT_S = 1.0


def judge_later(judge: Any, pool: Executor, audio: np.ndarray, transcript: Future[Any],
                encoded: threading.Event | None = None) -> Future[Verdict]:
    """The verdict on `audio` and its words, as a Future: a judge that hears the audio on
    its own (`EndOfTurnJudge.hear`) does so on `pool` while the words are still being
    decoded, and decides the moment both are in (on whichever thread finishes last); any
    other judge(audio, words) runs on `pool` once the words are in. The words' failure is
    the verdict's. `encoded` (call/transcripts.py): the words' decode has run its encoder;
    the hearing waits for it (or for the words): on two cores, Smart Turn beside Whisper's
    two-thread encoder stalls it, beside the one-thread decoder it costs nothing."""
    hear, decide_now = getattr(judge, "hear", None), getattr(judge, "decide", None)
    if hear is None or decide_now is None:
        return pool.submit(lambda: judge(audio, (transcript.result().text or "").strip()))
    probability = pool.submit(_hear_after, hear, audio, encoded)
    verdict: Future[Verdict] = Future()
    lock = threading.Lock()

    def done(_: Future[Any]) -> None:
        with lock:
            if not (probability.done() and transcript.done()) or verdict.done():
                return
            try:
                verdict.set_result(decide_now(probability.result(), (transcript.result().text or "").strip()))
            except Exception as exc:  # noqa: BLE001 - passed on: the listener reads it as a failed judge or STT
                verdict.set_exception(exc)

    probability.add_done_callback(done)
    transcript.add_done_callback(done)
    return verdict


def _hear_after(hear: Callable[[np.ndarray], float | None], audio: np.ndarray,
                encoded: threading.Event | None) -> float | None:
    if encoded is not None:
        encoded.wait(ENCODER_WAIT_S)
    return hear(audio)
