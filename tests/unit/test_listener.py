"""The Listener as a processor, on scripted frames with a fake port: what it does when
speech recognition fails (never a silent empty turn, never logged as the judge's failure)."""
from __future__ import annotations

import logging
from concurrent.futures import Future

import numpy as np
import pytest

from tests.unit.call_fakes import FakeVad
from tutor_app.call import events as ev
from tutor_app.call.listen import listener as listener_module
from tutor_app.call.listen import over_tutor as over_tutor_module
from tutor_app.call.listen.listener import Listener
from tutor_app.call.options import EchoOptions, EndpointingOptions, LoopOptions
from tutor_app.core.types import FRAME_SAMPLES


def _transcript(text: str):
    return type("Transcript", (), {"text": text})()


class _AnsweredWhenAsked(Future):
    """A decode that finishes while it is waited for: not done until `result()` is called."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    def result(self, timeout=None):
        if not self.done():
            self.set_result(_transcript(self._text))
        return super().result(timeout)


class _Port:
    """The call as the Listener sees it; STT answers as `stt` says: "fail", "never" or a text."""

    def __init__(self, stt: str = "fail", judge: bool = False, speaking: bool = False) -> None:
        self.stt, self.judge, self.speaking = stt, judge, speaking
        self.events: list = []
        self.interrupts = self.pauses = self.resumes = 0
        self.ducks: list[bool] = []
        self.utterances: list[tuple[np.ndarray, Future, bool]] = []
        self.kept: list[str] = []
        self.dropped: list[Future] = []
        self.ahead: list[np.ndarray] = []  # the utterances so far read ahead (hear_ahead)
        self.pending: list[Future] = []  # transcripts still decoding (stt="later")

    def emit(self, event) -> None:
        self.events.append(event)

    def tutor_audible(self) -> bool:
        return self.speaking

    def interrupt(self) -> None:
        self.interrupts += 1

    def pause(self) -> None:
        self.pauses += 1

    def resume(self) -> None:
        self.resumes += 1

    def duck(self, on: bool) -> None:
        self.ducks.append(on)

    def transcribe_later(self, audio, expect=None) -> Future:
        future: Future = Future()
        if self.stt == "later":  # decoding: the test answers (`pending`)
            self.pending.append(future)
        elif self.stt == "when asked":  # done the moment it is waited for
            future = _AnsweredWhenAsked("Mm-hmm.")
        elif self.stt == "fail":
            future.set_exception(RuntimeError("the decoder crashed"))
        elif self.stt != "never":
            future.set_result(type("Transcript", (), {"text": self.stt})())
        return future

    def drop(self, future: Future) -> None:
        self.dropped.append(future)
        future.cancel()  # as the call's STT worker: a decode not started never runs

    def hear_ahead(self, audio) -> None:
        self.ahead.append(audio)

    def judge_later(self, audio, transcript: Future) -> Future | None:
        if not self.judge:
            return None
        verdict: Future = Future()  # as the call loop's judge: it reads the transcript first
        try:
            transcript.result()
            verdict.set_result(type("Verdict", (), {"complete": False})())
        except Exception as exc:  # noqa: BLE001 - passed on as the loop's pool would
            verdict.set_exception(exc)
        return verdict

    def utterance(self, audio, eos, transcript, speculative, held=False):
        self.utterances.append((audio, transcript, speculative))

    def backchannel(self, text: str) -> None:
        self.kept.append(text)

    def tutor_words(self) -> str:
        return "Tell me about your day."

    def problems(self) -> list[ev.Problem]:
        return [e for e in self.events if isinstance(e, ev.Problem)]


def _feed(listener: Listener, amplitude: float, frames: int) -> None:
    for _ in range(frames):
        listener.feed(np.full(FRAME_SAMPLES, amplitude, np.float32))


def test_speech_over_the_tutor_whose_words_stt_cannot_read_is_told_not_dropped(caplog):
    port = _Port(stt="fail", speaking=True)
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port)
    with caplog.at_level(logging.WARNING, logger=over_tutor_module.__name__):
        _feed(listener, 0.3, 15)  # confirmed over the tutor (ducked), its words so far asked at 320 ms
        _feed(listener, 0.0, 30)
    assert port.ducks == [True, False] and port.interrupts == 0  # the tutor goes on at full volume
    assert len(port.problems()) == 1 and "over the tutor" in port.problems()[0].message
    assert listener.ends == {"not heard": 1} and not port.utterances and not port.kept
    logged = " | ".join(r.getMessage() for r in caplog.records)
    assert "speech recognition failed" in logged and "judge" not in logged


def test_a_turn_whose_stt_fails_goes_on_to_the_call_as_a_failed_turn_not_as_no_words(caplog):
    port = _Port(stt="fail", judge=True)
    options = LoopOptions(echo=EchoOptions(mode="headset"), endpointing=EndpointingOptions(thinking_ms=1000))
    listener = Listener(options.with_judge(True), FakeVad(), port)
    with caplog.at_level(logging.WARNING, logger=listener_module.__name__):
        _feed(listener, 0.3, 16)
        _feed(listener, 0.0, 40)  # past the 1 s silence window
    assert len(port.utterances) == 1
    _, transcript, speculative = port.utterances[0]
    assert not speculative and isinstance(transcript.exception(), RuntimeError)  # the loop reports it
    logged = [r.getMessage() for r in caplog.records]
    assert any("speech recognition failed on a turn" in m for m in logged)
    assert not any("judge failed" in m for m in logged)


def test_the_words_of_speech_over_the_tutor_are_awaited_with_a_bound(monkeypatch, caplog):
    """The silence window ended speech over the tutor before its words came: they are
    awaited, but not for ever (WORDS_WAIT_S of frames)."""
    monkeypatch.setattr(over_tutor_module, "WORDS_WAIT_S", 0.64)  # 20 frames
    port = _Port(stt="never", speaking=True)
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port)
    with caplog.at_level(logging.WARNING, logger=over_tutor_module.__name__):
        _feed(listener, 0.3, 12)
        _feed(listener, 0.0, 25)  # past the 600 ms window: no judge, no words
        assert not port.problems() and port.ducks == [True]  # still awaited
        _feed(listener, 0.0, 20)
    assert len(port.problems()) == 1 and port.ducks == [True, False]
    assert any("no answer" in r.getMessage() for r in caplog.records)


def test_the_audio_thread_goes_on_while_the_words_of_speech_over_the_tutor_decode():
    """On a slow CPU the STT worker is seconds behind: the audio thread does not wait for
    those words (it fell as far behind the microphone); it decides when they come."""
    port = _Port(stt="later", speaking=True)
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port)
    _feed(listener, 0.3, 12)
    _feed(listener, 0.0, 60)  # the window ended it 1.3 s ago, its words (asked at its pause) decode on
    assert listener.frames_seen == 72 and port.ducks == [True] and not port.kept
    for future in port.pending:
        future.set_result(_transcript("Mm-hmm."))
    listener.poll()  # woken by the transcript, between frames
    assert port.kept == ["Mm-hmm"] and port.ducks == [True, False] and port.interrupts == 0
    assert listener.ends == {"backchannel": 1} and not port.utterances


def test_voice_before_the_awaited_words_come_waits_for_them_first():
    """New speech never starts while the last one over the tutor is undecided: its words
    are waited for (bounded) on the first voiced frame, then the new speech is its own."""
    port = _Port(stt="when asked", speaking=True)
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port)
    _feed(listener, 0.3, 12)
    _feed(listener, 0.0, 25)
    assert port.ducks == [True] and not port.kept  # awaited
    _feed(listener, 0.3, 1)  # voice again: the "Mm-hmm." is decided first
    assert port.kept == ["Mm-hmm"] and port.ducks == [True, False]
    _feed(listener, 0.3, 11)
    assert port.ducks == [True, False, True]  # the next speech over the tutor, on its own
    assert sum(isinstance(e, ev.SpeechStarted) for e in port.events) == 2


@pytest.mark.parametrize(("words", "kept", "ends"), [("Mm-hmm.", ["Mm-hmm"], {"backchannel": 1}),
                                                     ("In a month.", [], {"nothing": 1})])
def test_speech_over_the_tutor_read_as_a_backchannel_or_nothing_lets_it_go_on(words, kept, ends):
    port = _Port(stt=words, speaking=True)
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port)
    _feed(listener, 0.3, 12)
    _feed(listener, 0.0, 30)
    assert port.kept == kept and listener.ends == ends
    assert port.interrupts == 0 and not port.problems() and port.ducks == [True, False]


T = np.arange(FRAME_SAMPLES) / 16000
# Scripted frames by what they sound like (call/listen/floor.py): open speech (a vowel's
# harmonics), a nasal hum (its energy under 350 Hz) and a cough (noise: a flat spectrum).
SOUNDS = {
    "speech": 0.05 * sum(a * np.sin(2 * np.pi * 120 * (k + 1) * T)
                         for k, a in enumerate([0.3, 0.4, 0.5, 0.8, 0.9, 0.7, 0.5, 0.4, 0.5, 0.6, 0.4, 0.3])),
    "hum": 0.2 * sum(a * np.sin(2 * np.pi * 120 * (k + 1) * T) for k, a in enumerate([1.0, 0.6, 0.1, 0.02])),
    "cough": 0.1 * np.random.default_rng(3).standard_normal(FRAME_SAMPLES),
}


@pytest.mark.parametrize(("sound", "words", "pauses", "kept", "ends"), [
    ("speech", "Okay.", 1, ["Okay"], {"backchannel": 1}),  # paused by its sound, resumed by its words
    ("hum", "Mm-hmm.", 0, ["Mm-hmm"], {"backchannel": 1}),  # a hum never pauses it
    ("cough", "", 0, [], {"nothing": 1}),  # nor does a cough
])
def test_its_sound_pauses_the_tutor_and_its_words_resume_it(sound, words, pauses, kept, ends):
    port = _Port(stt=words, speaking=True)
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port)
    frame = SOUNDS[sound].astype(np.float32)
    for _ in range(14):  # 450 ms of it over the tutor: confirmed at 250 ms, the floor's length at 288 ms
        listener.feed(frame)
    assert port.pauses == pauses and port.interrupts == 0
    _feed(listener, 0.0, 30)
    assert port.resumes == pauses and port.interrupts == 0  # a paused tutor plays on, not interrupted
    assert port.kept == kept and listener.ends == ends and port.ducks == [True, False]


def test_a_learner_who_talks_on_after_the_pause_ends_the_tutors_turn():
    port = _Port(stt="never", speaking=True)  # no words needed
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")), FakeVad(), port)
    for _ in range(8 + 1 + 3 + 15):  # confirmed, paused, the echo's tail, 480 ms talking on
        listener.feed(SOUNDS["speech"].astype(np.float32))
    assert (port.pauses, port.interrupts, port.resumes) == (1, 1, 0)


class _PendingPort(_Port):
    """A port whose transcript and verdict come in when the test says (between frames)."""

    def __init__(self) -> None:
        super().__init__(stt="never", judge=True)
        self.transcripts: list[Future] = []
        self.audio: list[np.ndarray] = []  # what each transcript was asked of
        self.verdicts: list[Future] = []
        self.eos: list[float] = []

    def transcribe_later(self, audio, expect=None) -> Future:
        self.audio.append(audio)
        self.transcripts.append(Future())
        return self.transcripts[-1]

    def judge_later(self, audio, transcript: Future) -> Future | None:
        self.verdicts.append(Future())
        return self.verdicts[-1]

    def utterance(self, audio, eos, transcript, speculative, held=False):
        self.eos.append(eos)
        super().utterance(audio, eos, transcript, speculative, held)


def test_a_verdict_that_comes_in_between_frames_wakes_the_audio_thread_and_is_acted_on_at_once():
    """The tutor's turn starts when the verdict is in, not at the next microphone frame
    (up to 32 ms later); its end of speech still counts from the last frame handled."""
    import time

    port = _PendingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), FakeVad(), port)
    woken: list[int] = []
    listener.wake = lambda: woken.append(1)
    _feed(listener, 0.3, 16)
    _feed(listener, 0.0, 8)  # past the early transcript (1 frame) and the 200 ms check (6 frames)
    assert len(port.transcripts) == 1 and len(port.verdicts) == 1 and not port.utterances
    before = time.perf_counter()
    port.transcripts[0].set_result(type("Transcript", (), {"text": "I went hiking."})())
    port.verdicts[0].set_result(type("Verdict", (), {"complete": True, "likely": False, "reason": "test"})())
    assert len(woken) == 2  # each one woke the audio thread
    listener.poll()
    assert len(port.utterances) == 1 and port.utterances[0][2] is True  # speculated now, no new frame
    assert port.eos[0] < before  # from the frame handled before: 8 frames of silence ago
    listener.poll()  # nothing more to do: no second turn
    assert len(port.utterances) == 1


def test_a_guess_at_a_pause_the_learner_talks_on_through_is_dropped_and_the_next_pause_asks_at_once():
    """The STT worker decodes one guess at a time: a stale one still decoding would hold up
    the guess at the turn's real end."""
    port = _PendingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), FakeVad(), port)
    _feed(listener, 0.3, 16)
    _feed(listener, 0.0, 2)  # a word gap: the early guess is asked for
    assert len(port.transcripts) == 1 and not port.dropped
    _feed(listener, 0.3, 4)  # the learner talks on
    assert port.dropped == port.transcripts
    _feed(listener, 0.0, 1)  # the next pause: asked at its first silent frame
    assert len(port.transcripts) == 2 and port.dropped == port.transcripts[:1]


class _FadingVad:
    """Voice, a fading frame (voiced, under the threshold that starts speech) or silence,
    by the frame's level."""

    def reset(self) -> None:
        pass

    def probability(self, frame) -> float:
        level = float(np.max(np.abs(frame)))
        return 0.95 if level > 0.02 else 0.4 if level > 0.005 else 0.02


def _answer_complete(listener: Listener, port: _PendingPort) -> None:
    """The guess's words come in, the judge (asked at its time) calls the turn complete,
    and the silence goes on past the check."""
    port.transcripts[-1].set_result(type("Transcript", (), {"text": "I went home."})())
    _feed(listener, 0.0, 4)
    port.verdicts[-1].set_result(type("Verdict", (), {"complete": True})())
    _feed(listener, 0.0, 3)


def test_a_fading_last_frame_asks_for_the_words_up_to_it_before_the_silence():
    """Asked at the fading frame, the guess decodes the span the first silent frame would
    ask for (the voice up to its last voiced frame), one frame sooner; the silence after it
    does not ask again."""
    port = _PendingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), _FadingVad(), port)
    _feed(listener, 0.3, 16)
    assert not port.transcripts
    _feed(listener, 0.01, 1)  # the voice's last frame, fading
    assert len(port.transcripts) == 1
    asked = port.audio[0]
    _feed(listener, 0.0, 3)
    assert len(port.transcripts) == 1 and not port.dropped
    assert len(asked) == 17 * FRAME_SAMPLES and asked[-1] == np.float32(0.01)  # the voice, its fading frame last
    _answer_complete(listener, port)
    assert len(port.verdicts) == 1 and len(port.transcripts) == 1  # the judge heard the same guess
    assert len(port.utterances) == 1 and listener.guesses == {"fading frame": 1}


def test_a_fading_frame_inside_speech_asks_and_the_voice_after_it_drops_the_guess():
    port = _PendingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), _FadingVad(), port)
    _feed(listener, 0.3, 16)
    _feed(listener, 0.01, 1)
    _feed(listener, 0.3, 4)  # the learner talks on
    assert port.dropped == port.transcripts and len(port.transcripts) == 1


def test_without_fading_guesses_the_first_silent_frame_asks():
    port = _PendingPort()
    options = LoopOptions(echo=EchoOptions(mode="headset"), endpointing=EndpointingOptions(fading_stt=False))
    listener = Listener(options.with_judge(True), _FadingVad(), port)
    _feed(listener, 0.3, 16)
    _feed(listener, 0.01, 1)
    assert not port.transcripts
    _feed(listener, 0.0, 1)
    assert len(port.transcripts) == 1
    _answer_complete(listener, port)
    assert len(port.utterances) == 1 and listener.guesses == {"silence": 1}


def test_a_guess_already_in_is_not_dropped():
    port = _PendingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), FakeVad(), port)
    _feed(listener, 0.3, 16)
    _feed(listener, 0.0, 2)
    port.transcripts[0].set_result(type("Transcript", (), {"text": "I went"})())
    _feed(listener, 0.3, 4)
    assert not port.dropped


def test_poll_without_a_silence_waiting_on_words_does_nothing():
    port = _PendingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), FakeVad(), port)
    listener.poll()  # before any audio
    _feed(listener, 0.3, 16)
    listener.poll()  # while the learner talks
    assert not port.transcripts and not port.utterances


def test_the_utterance_is_read_ahead_while_the_learner_speaks_each_read_a_start_of_the_words_asked_for():
    """Every AHEAD_FRAMES voiced frames the utterance so far goes to the STT worker's VAD
    (hear_ahead): the words asked for at the end begin with each of them, so the end's
    VAD pass reads only the frames after the last (speech/vad.py)."""
    from tutor_app.call.listen.endpointing import AHEAD_FRAMES

    port = _PendingPort()
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), FakeVad(), port)
    _feed(listener, 0.3, 2 * AHEAD_FRAMES + 5)
    assert len(port.ahead) == 2 and len(port.ahead[1]) - len(port.ahead[0]) == AHEAD_FRAMES * FRAME_SAMPLES
    _feed(listener, 0.0, 1)  # the first silent frame asks for the words
    words = port.audio[0]
    assert all(np.array_equal(words[:len(a)], a) for a in port.ahead) and len(words) > len(port.ahead[1])


def test_speech_over_the_tutor_is_not_read_ahead():
    port = _PendingPort()
    port.speaking = True
    listener = Listener(LoopOptions(echo=EchoOptions(mode="headset")).with_judge(True), FakeVad(), port)
    _feed(listener, 0.3, 40)
    assert port.pauses == 1 and port.ahead == []  # heard as speech over the tutor, its words read otherwise
