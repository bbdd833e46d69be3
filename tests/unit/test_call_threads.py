"""The live call's threads: one owner per resource (the speaker's player, the microphone
loop's capture stream, the loop's STT and judge pools), one ordered stop, a catch-all on
every thread that ends the call with one message, the speaking-rate save off the real-time
threads and the engine pinned per call. Races are made deterministic with events: a
thread is held inside a fake (the sound card, the VAD, the synthesiser) while another acts.
No sleeps, no clocks."""
from __future__ import annotations

import logging
import threading
from types import SimpleNamespace

import numpy as np

from tests.unit.call_fakes import LOUD, FakeEngine, FakeSd, FakeSession, FakeStt, FakeTts, FakeVad, HeldTts, Recorder
from tests.unit.test_call_loop import REPLY, Call
from tutor_app.call import events as ev
from tutor_app.call.controller import CallController
from tutor_app.call.loop import LoopOptions
from tutor_app.call.options import EchoOptions
from tutor_app.call.speaker import Speaker
from tutor_app.call.tutor_turn import TurnControl
from tutor_app.settings import SpeechSettings
from tutor_app.speech.playback import Player

CALL_THREADS = ("call-audio", "call-turns", "tts-playback", "playback-notify", "call-stt", "call-judge")


def _start(vad=None, sd=None, tts=None, session=None, mode="headset", app=None, warm_up=False):
    """A call through the controller, on the fake sound card (cf. test_call_loop.Call)."""
    sd = sd or FakeSd()
    session = session or FakeSession([REPLY])
    rec = Recorder()
    opts = LoopOptions(echo=EchoOptions(mode=mode), stall_s=None, warm_up=warm_up, reopen_every_s=0.02)
    settings = SimpleNamespace(speech=SpeechSettings(audio_mode=mode))
    if app is not None:
        ctl = CallController(app, sd=sd, options=opts, judge=False)
    else:
        ctl = CallController(engine=FakeEngine(session), stt=FakeStt("hello there"), vad=vad or FakeVad(),
                             tts=tts or FakeTts(), settings=settings, sd=sd, options=opts, judge=False)
    ctl.start_call(off_record=True, sink=rec)
    return ctl, rec, sd


def _end(ctl) -> None:
    ctl.end_call()
    if ctl.end_work is not None:
        ctl.end_work.join(10)


def _call_threads_ended(timeout: float = 10.0) -> list[str]:
    """Join every thread of a call still running; the names of those that did not end."""
    alive = []
    for thread in threading.enumerate():
        if thread.name.startswith(CALL_THREADS):
            thread.join(timeout)
            if thread.is_alive():
                alive.append(thread.name)
    return alive


def _aborted_and_ended(rec: Recorder) -> ev.CallAborted:
    """One CallAborted, then the call's end as when the learner ends it."""
    report = rec.wait_kind(ev.ReportReady)[0]
    names = [type(e).__name__ for e in rec.events if not isinstance(e, ev.MicLevel)]
    assert names.count("CallAborted") == 1, names
    assert names.index("CallAborted") < names.index("CallEnded") < names.index("ReportReady")
    assert ev.StateChanged(ev.ENDED) in rec.events
    assert isinstance(report.report, dict)
    return rec.of(ev.CallAborted)[0]


# -- a catch-all on every thread --------------------------------------------------------

class BrokenVad(FakeVad):
    """The VAD fails on frame `at` (and on every one after, were it asked again)."""

    def __init__(self, at: int) -> None:
        self.at, self.seen = at, 0

    def probability(self, frame) -> float:
        self.seen += 1
        if self.seen >= self.at:
            raise ValueError("the VAD broke")
        return super().probability(frame)


def test_a_failing_vad_ends_the_call_with_one_message_and_one_log_line(caplog):
    ctl, rec, sd = _start(vad=BrokenVad(at=5))
    with caplog.at_level(logging.ERROR, logger="tutor_app.call.loop"):
        sd.inputs[-1].push_frames(LOUD, 8)
        aborted = _aborted_and_ended(rec)
    assert (aborted.where, aborted.error) == ("audio", "ValueError")
    assert "audio" in aborted.message and "new call" in aborted.message
    failures = [r for r in caplog.records if "thread failed" in r.getMessage()]
    assert len(failures) == 1 and failures[0].exc_info is not None  # the traceback, in the log only
    assert ctl.loop is None  # ended: a new call may start
    assert not sd.inputs[-1].active and not sd.outputs[-1].active
    assert _call_threads_ended() == []
    _end(ctl)  # the learner pressing End afterwards changes nothing
    assert [type(e).__name__ for e in rec.events].count("CallEnded") == 1


class BrokenCanceller:
    """An echo canceller (speech/aec.py) whose processing fails on a block."""

    tap = None  # no far-end tap: the player plays as without one

    def process_block(self, samples, t_capture):
        raise RuntimeError("AEC3 broke")


def test_a_failing_echo_canceller_ends_the_call_with_one_message(monkeypatch):
    from tutor_app.speech import aec

    monkeypatch.setattr(aec.EchoCanceller, "load", lambda *a, **k: BrokenCanceller())
    ctl, rec, sd = _start(mode="speaker")
    sd.inputs[-1].push_frames(LOUD, 1)
    aborted = _aborted_and_ended(rec)
    assert (aborted.where, aborted.error) == ("audio", "RuntimeError")
    assert _call_threads_ended() == []


class BrokenMemorySession(FakeSession):
    """The memory read before the first turn fails (outside any one turn)."""

    @property
    def stt_bias(self):
        raise OSError("the memory database is gone")


def test_a_failure_on_the_turns_thread_outside_a_turn_ends_the_call():
    ctl, rec, sd = _start(session=BrokenMemorySession([REPLY]), warm_up=True)  # the warm-up reads the memory
    aborted = _aborted_and_ended(rec)
    assert (aborted.where, aborted.error) == ("turns", "OSError")
    assert _call_threads_ended() == []


def test_a_bug_on_the_tts_thread_ends_the_call_and_wakes_whoever_waits_on_the_turn():
    failures: list[tuple[str, str]] = []
    failed = threading.Event()
    control = TurnControl()
    speaker = Speaker(FakeTts(), None, control, on_start=lambda turn, text, t: None,
                      on_failure=lambda where, exc: (failures.append((where, type(exc).__name__)), failed.set()))
    try:
        turn = control.begin()
        speaker._queue.put((object(), 0))  # a malformed item stands in for a bug on that thread
        assert failed.wait(10)
        speaker.say(turn, "One two three.")  # nothing more is said ...
        speaker.wait_done(turn)  # ... and a waiter is not left waiting for ever
        assert failures == [("speech", "AttributeError")]
    finally:
        speaker.close()


def test_a_bug_in_a_sentence_started_callback_ends_the_call():
    failures: list[str] = []
    failed = threading.Event()
    sd = FakeSd()
    control = TurnControl()
    player = Player(sd, None, 16000)

    def on_start(turn, text, t):
        raise KeyError("a bug in the sentence callback")

    speaker = Speaker(FakeTts(), player, control, on_start=on_start,
                      on_failure=lambda where, exc: (failures.append(where), failed.set()))
    player.start()
    try:
        speaker.say(control.begin(), "One two three.")
        with control.lock:
            assert control.lock.wait_for(lambda: player.queued_samples() > 0 or failures, 10)
        sd.outputs[-1].pull(1000)  # the first sample goes out: the notifier calls back
        assert failed.wait(10)
        assert failures == ["playback"]
    finally:
        speaker.close()


# -- one owner per resource ---------------------------------------------------------------

def test_the_speaker_owns_its_player_for_the_whole_call_and_closes_it_after_its_tts_thread():
    """The output device dies while the audio thread holds the player: the TTS thread marks
    it lost (the player reads None from then on, the object is never taken away), the
    reference the audio thread holds stays safe to call, and close() ends the TTS thread
    before it closes the player."""
    sd = FakeSd()
    control = TurnControl()
    player = Player(sd, None, 16000)
    lost = threading.Event()
    hold = threading.Event()

    def on_problem(kind: str, message: str) -> None:
        lost.set()
        assert hold.wait(10)  # the TTS thread waits here while the audio side acts

    speaker = Speaker(FakeTts(), player, control, on_start=lambda turn, text, t: None, on_problem=on_problem)
    player.start()
    held = speaker.player  # what the audio thread took before the loss
    assert held is player
    sd.outputs[-1].lose()
    turn = control.begin()
    speaker.say(turn, "One two three.")
    assert lost.wait(10)  # the TTS thread noticed, and marked it lost
    assert speaker.player is None and speaker._player is player
    audio_errors: list[BaseException] = []

    def audio_side() -> None:
        try:
            speaker.audible(turn)
            speaker.stop_audio()
            speaker.set_gain(0.3)
            held.clear()  # a reference taken before the loss: still harmless
            held.set_gain(1.0)
            assert held.busy in (True, False)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            audio_errors.append(exc)

    audio = threading.Thread(target=audio_side, name="call-audio")
    audio.start()
    audio.join(10)
    hold.set()
    speaker.wait_done(turn)
    assert audio_errors == []
    assert speaker.heard(turn) == "One two three."  # shown as text once the device was gone

    closed_with_tts_alive: list[bool] = []
    stream = sd.outputs[-1]
    real_close = stream.close
    stream.close = lambda: (closed_with_tts_alive.append(speaker._thread.is_alive()), real_close())[1]
    speaker.close()
    assert closed_with_tts_alive == [False]  # the TTS thread ended first


class HeldSd(FakeSd):
    """Opening a microphone again (after the first) waits inside PortAudio until released."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.release = threading.Event()

    def InputStream(self, **kwargs):  # noqa: N802 - sounddevice's name
        if self.inputs:
            self.entered.set()
            assert self.release.wait(10)
        return super().InputStream(**kwargs)


def test_a_microphone_reopened_while_the_call_stops_is_closed_at_once():
    """The audio thread is inside reopening the lost microphone when the call's stop closes
    the microphone: the stream it then hands in is closed at once, never left running."""
    sd = HeldSd()
    ctl, rec, _ = _start(sd=sd)
    loop = ctl.loop
    first = sd.inputs[-1]
    first.lose()  # unplugged: the call pauses and tries again
    assert sd.entered.wait(10)  # the audio thread is inside the reopen now
    ending = threading.Thread(target=_end, args=(ctl,), name="test-end")
    ending.start()
    assert loop.mic.closed.wait(10)  # the stop closed the microphone (and is joining the threads)
    sd.release.set()
    ending.join(10)
    assert not ending.is_alive()
    assert len(sd.inputs) == 2 and not sd.inputs[-1].active  # the reopened stream was closed at once
    assert loop.capture is None and not first.active
    assert _call_threads_ended() == []
    assert not rec.of(ev.CallAborted)


def test_the_pools_exist_before_the_threads_and_a_late_request_starts_nothing():
    """The STT and judge pools are made with the loop, not lazily on the audio thread; a
    request the audio thread makes after the stop (it was stuck past the join) fails on
    that thread's catch-all without a message, and starts no thread."""
    ctl, rec, sd = _start()
    loop = ctl.loop
    assert sorted(loop._pools) == ["judge", "stt"]
    _end(ctl)
    assert all(pool._shutdown for pool in loop._pools.values())
    late = threading.Thread(target=loop._guarded, name="call-audio",
                            args=("audio", lambda: loop.transcribe_later(np.zeros(512, np.float32))))
    late.start()
    late.join(10)
    assert not rec.of(ev.CallAborted)
    assert _call_threads_ended() == []


def test_end_call_stops_everything_in_order_while_a_sentence_is_being_synthesised():
    """The ordered stop: the turn is cancelled and the microphone closed first, the turns
    and audio threads end, then the speaker: its TTS thread (held inside Piper here) ends
    before its player closes."""
    tts = HeldTts()
    ctl, rec, sd = _start(tts=tts)
    loop = ctl.loop
    ctl.send_text("Hello")
    assert tts.entered.wait(10)  # the TTS thread is inside synthesis
    order: list[tuple[str, bool, bool, bool]] = []
    stream = sd.outputs[-1]
    real_close = stream.close

    def closing_output() -> None:
        order.append(("output closed", loop.speaker._thread.is_alive(), any(
            t.is_alive() for t in loop._threads), sd.inputs[-1].active))
        real_close()

    stream.close = closing_output
    ending = threading.Thread(target=_end, args=(ctl,), name="test-end")
    ending.start()
    assert loop.mic.closed.wait(10)
    tts.release.set()
    ending.join(10)
    assert not ending.is_alive()
    # When the player closed: no TTS thread, no turns or audio thread, no microphone.
    assert order == [("output closed", False, False, False)]
    assert loop.control.closed and _call_threads_ended() == []
    names = [type(e).__name__ for e in rec.events]
    assert names.index("CallEnded") < names.index("ReportReady") and "CallAborted" not in names


# -- no disk writes on the real-time threads; the engine pinned per call -------------------

class CompleteJudge:
    """The end-of-turn judge's seam: every turn is complete."""

    def __init__(self) -> None:
        self.asked = threading.Event()

    def __call__(self, audio, text: str):
        self.asked.set()
        return SimpleNamespace(complete=True, reason="scripted")


class RateTts(FakeTts):
    rate = 1.0

    def set_rate(self, rate: float) -> None:
        self.rate = rate


def test_a_speaking_rate_request_is_saved_on_the_turns_thread(tmp_path):
    """A speculative turn commits on the TTS thread (its first sample) or the audio thread
    (the silence): the request it carries is saved later, on the turns thread."""
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.settings_store import store_for

    settings = Settings(paths=AppPaths.resolve(tmp_path))
    saved_on: list[str] = []
    store_for(settings).subscribe(lambda s: saved_on.append(threading.current_thread().name))
    judge = CompleteJudge()
    call = Call(judge=judge, stt=FakeStt("Could you speak more slowly?"), tts=RateTts())
    try:
        call.session.engine = SimpleNamespace(settings=settings)
        call.mic.push_frames(0.0, 15)
        call.mic.push_frames(LOUD, 16)
        call.mic.push_frames(0.0, 7)  # through the judge's check (200 ms)
        call.processed(15 + 16 + 7)
        assert judge.asked.wait(10)
        call.ctl.loop._pool("judge").submit(lambda: None).result()  # the verdict is in
        # Acted on: a speculative turn, held to the earliest a reply plays (480 ms of silence),
        # then committed at its first sample.
        call.mic.push_frames(0.0, 8)
        call.queued(9000)  # the whole reply is in the player
        call.play_all()
        call.rec.wait_kind(ev.TutorTurnDone)
        assert saved_on == ["call-turns"]
        assert 0 < settings.speech.speaking_rate < 1.0
    finally:
        call.end()


def test_the_call_end_uses_the_engine_the_call_started_on():
    """A profile switch mid-call rebinds the app's engine: the call's end still goes to the
    engine (the profile) the call started on."""
    ended_by: list[str] = []

    def engine(name: str) -> FakeEngine:
        made = FakeEngine(FakeSession([REPLY]))
        made.services = SimpleNamespace(clock=lambda: ended_by.append(name) or 0.0)
        return made

    app = SimpleNamespace(engine=engine("first"), settings=SimpleNamespace(speech=SpeechSettings(audio_mode="headset")),
                          stt=FakeStt(), tts=FakeTts(), vad=FakeVad(), end_of_turn=None)
    ctl, rec, _ = _start(app=app, sd=FakeSd(inputs=False, outputs=False))
    app.engine = engine("second")  # the learner switched profiles
    _end(ctl)
    rec.wait_kind(ev.ReportReady)
    assert ended_by == ["first"]
