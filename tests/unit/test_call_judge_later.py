"""The end-of-turn judge in a live call (call/listen/judge.py `judge_later`): the audio is
heard while the words are decoded, the verdict comes the moment both are in. Futures are
completed by hand and the judge's pool is run by the test: no threads, no waits."""
from __future__ import annotations

from concurrent.futures import Future
from types import SimpleNamespace

import pytest

from tests.unit.test_call_transcripts import HandPool
from tutor_app.call.listen.judge import EndOfTurnJudge, judge_later


class Model:
    def __init__(self, probability: float | Exception) -> None:
        self.probability = probability
        self.heard = 0

    def predict(self, audio) -> float:  # noqa: ANN001
        self.heard += 1
        if isinstance(self.probability, Exception):
            raise self.probability
        return self.probability


def _words(text: str) -> SimpleNamespace:
    return SimpleNamespace(text=text)


def test_the_audio_is_heard_before_the_words_are_in_and_the_verdict_waits_for_both():
    model, pool, words = Model(0.9), HandPool(), Future()
    verdict = judge_later(EndOfTurnJudge(model), pool, "audio", words)
    pool.run()  # the judge's thread hears the audio while Whisper still decodes
    assert model.heard == 1 and not verdict.done()
    words.set_result(_words("I went hiking with my friends"))
    assert verdict.done() and verdict.result().complete  # decided on the thread that finished last


def test_words_first_then_the_audio():
    model, pool, words = Model(0.1), HandPool(), Future()
    verdict = judge_later(EndOfTurnJudge(model), pool, "audio", words)
    words.set_result(_words("I want to talk about"))
    assert not verdict.done()
    pool.run()
    assert verdict.result().complete is False and "preposition" in verdict.result().reason


def test_failed_words_fail_the_verdict_and_a_failed_model_leaves_the_words_to_decide():
    pool, words = HandPool(), Future()
    verdict = judge_later(EndOfTurnJudge(Model(0.9)), pool, "audio", words)
    pool.run()
    words.set_exception(RuntimeError("the decoder crashed"))
    with pytest.raises(RuntimeError):
        verdict.result()
    words = Future()
    verdict = judge_later(EndOfTurnJudge(Model(ValueError("onnx"))), pool, "audio", words)
    pool.run()
    words.set_result(_words("Yes, I did."))
    assert verdict.result().complete and verdict.result().audio_probability is None


def test_a_judge_that_only_judges_audio_and_words_together_runs_once_the_words_are_in():
    asked: list[str] = []
    pool, words = HandPool(), Future()
    words.set_result(_words(" hello "))
    verdict = judge_later(lambda audio, text: asked.append(text) or "verdict", pool, "audio", words)
    pool.run()
    assert verdict.result() == "verdict" and asked == ["hello"]


def test_the_audio_is_heard_once_the_words_encoder_is_done():
    """Smart Turn beside Whisper's two-thread encoder would stall it (two cores): the
    judge's thread waits for the encoder (`encoded`, set by the STT worker) first."""
    order: list[str] = []

    class Encoded:  # the STT worker's Event, as the judge's thread sees it
        def wait(self, timeout: float | None = None) -> bool:
            order.append("waited for the encoder")
            return True

    class Heard(Model):
        def predict(self, audio) -> float:  # noqa: ANN001
            order.append("heard")
            return super().predict(audio)

    model, pool, words = Heard(0.9), HandPool(), Future()
    verdict = judge_later(EndOfTurnJudge(model), pool, "audio", words, Encoded())  # type: ignore[arg-type]
    pool.run()
    assert order == ["waited for the encoder", "heard"]
    words.set_result(_words("I went hiking with my friends"))
    assert verdict.result().complete
