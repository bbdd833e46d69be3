"""The call's STT worker and `drop` (call/transcripts.py CallStt): a guess nobody wants
never starts, or stops at its decode's next stage; a done one keeps its words. The
worker is a pool the test runs by hand; the decoder is scripted."""
from __future__ import annotations

import numpy as np
import pytest

from tests.unit.test_call_transcripts import HandPool
from tutor_app.call.options import RecognitionOptions
from tutor_app.call.transcripts import CallStt
from tutor_app.core.types import SAMPLE_RATE, Transcript
from tutor_app.speech.stt import DecodeStopped, stop_if_asked


class StagedDecoder:
    """A decode in two stages; `between` runs after the first (the learner talks on)."""

    def __init__(self) -> None:
        self.stages: list[str] = []
        self.between = lambda: None

    def transcribe_part(self, audio, start=0, prompt="", bias=None, window_s=None, stop=None):  # noqa: ANN001
        stop_if_asked(stop)
        self.stages.append("encoder")
        self.between()
        stop_if_asked(stop)
        self.stages.append("decoder")
        return Transcript("I went hiking", "en", len(audio) / SAMPLE_RATE)


def _call() -> tuple[CallStt, StagedDecoder, HandPool]:
    decoder, pool = StagedDecoder(), HandPool()
    return CallStt(decoder, lambda: None, RecognitionOptions(), pool=pool), decoder, pool


AUDIO = np.zeros(SAMPLE_RATE, np.float32)


def test_a_dropped_guess_that_has_not_started_never_decodes():
    stt, decoder, pool = _call()
    guess = stt.transcribe_later(AUDIO)
    stt.drop(guess)
    pool.run()
    assert guess.cancelled() and decoder.stages == []


def test_a_dropped_guess_that_is_decoding_stops_at_its_next_stage():
    stt, decoder, pool = _call()
    guess = stt.transcribe_later(AUDIO)
    decoder.between = lambda: stt.drop(guess)  # dropped while its first stage runs
    pool.run()
    assert decoder.stages == ["encoder"]
    with pytest.raises(DecodeStopped):
        guess.result()


def test_dropping_a_guess_that_is_in_keeps_its_words_and_the_next_decodes_in_full():
    stt, decoder, pool = _call()
    guess = stt.transcribe_later(AUDIO)
    pool.run()
    stt.drop(guess)
    assert guess.result().text == "I went hiking"
    decoder.stages.clear()
    following = stt.transcribe_later(AUDIO)
    pool.run()
    assert following.result().text == "I went hiking" and decoder.stages == ["encoder", "decoder"]
