"""The live call hands its session's bias list (the profile's names) to speech recognition."""
from __future__ import annotations

from types import SimpleNamespace

from tests.unit.call_fakes import FakeStt, wait_until
from tests.unit.test_call_loop import calls  # noqa: F401 (fixture)
from tutor_app.speech.bias import BiasList


class BiasStt(FakeStt):
    """A SpeechToText that takes a bias list and remembers what it got."""

    def transcribe(self, clip, bias=None):
        return SimpleNamespace(text=super().transcribe(clip, bias).text, segments=[])


class PlainStt(FakeStt):
    """An older SpeechToText without the `bias` argument."""

    def transcribe(self, clip):  # type: ignore[override]
        return super().transcribe(clip)


def test_every_utterance_is_transcribed_with_the_calls_bias_list(calls):  # noqa: F811
    stt = BiasStt("I met Haneul")
    call = calls(stt=stt)
    bias = BiasList(("Haneul", "Kongi"))
    call.session.stt_bias = bias  # Conversation.stt_bias: built once per call from memory
    call.mic.push_frames(0.0, 15)
    call.say()
    assert wait_until(lambda: call.session.texts == ["I met Haneul"])
    assert stt.biases and all(b is bias for b in stt.biases)


def test_a_session_without_names_uses_the_plain_call(calls):  # noqa: F811
    stt = PlainStt("hello there")  # no bias argument at all: must still work
    call = calls(stt=stt)
    call.mic.push_frames(0.0, 15)
    call.say()
    assert wait_until(lambda: call.session.texts == ["hello there"])
