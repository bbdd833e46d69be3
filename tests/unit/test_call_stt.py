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
        self.fail = False

    def transcribe_part(self, audio, start=0, prompt="", bias=None, window_s=None, stop=None,  # noqa: ANN001
                        encoded=None):  # noqa: ANN001
        stop_if_asked(stop)
        if self.fail:
            raise RuntimeError("the model failed")
        self.stages.append("encoder")
        if encoded is not None:
            encoded.set()
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


def test_a_guess_says_when_its_encoder_has_run():
    stt, decoder, pool = _call()
    guess = stt.transcribe_later(AUDIO)
    encoded = stt.encoded(guess)
    assert encoded is not None and not encoded.is_set()  # queued: nothing has run
    seen = []
    decoder.between = lambda: seen.append(encoded.is_set())  # after the encoder, before the decoder
    pool.run()
    assert seen == [True] and guess.result().text == "I went hiking"


def test_a_guess_that_fails_before_its_encoder_still_says_it_is_done_with_it():
    stt, decoder, pool = _call()
    decoder.fail = True
    guess = stt.transcribe_later(AUDIO)
    pool.run()
    assert stt.encoded(guess).is_set() and decoder.stages == []
    with pytest.raises(RuntimeError):
        guess.result()


def test_only_the_workers_own_requests_have_an_encoder_signal():
    from concurrent.futures import Future

    stt, _decoder, _pool = _call()
    assert stt.encoded(Future()) is None


class _ReadVad:
    def __init__(self) -> None:
        self.read: list[int] = []

    def frame_probabilities(self, audio) -> np.ndarray:  # noqa: ANN001
        self.read.append(len(audio))
        return np.zeros(len(audio) // 512, np.float32)


def test_the_utterance_so_far_is_read_ahead_on_the_worker_one_read_waiting_at_most():
    stt, decoder, pool = _call()
    decoder.vad = _ReadVad()
    stt.hear_ahead(AUDIO[:8192])
    stt.hear_ahead(AUDIO)  # one is still waiting: this one is skipped
    pool.run()
    assert decoder.vad.read == [8192]
    stt.hear_ahead(AUDIO)  # the last one ran: this one goes
    pool.run()
    assert decoder.vad.read == [8192, len(AUDIO)] and decoder.stages == []


def test_nothing_is_read_ahead_before_the_model_is_loaded():
    pool = HandPool()
    loads: list[str] = []
    stt = CallStt(lambda: loads.append("loaded") or StagedDecoder(), lambda: None, RecognitionOptions(), pool=pool)
    stt.hear_ahead(AUDIO)
    pool.run()
    assert loads == []  # the audio thread never loads the model
