"""The one interruption path: a TutorTurn shared by the engine, the TTS thread, the
player's notifier and the audio thread. Races are made deterministic by holding the TTS
thread inside synthesis with an event and by pulling the fake speaker by hand."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.unit.call_fakes import FakeSd, FakeTts, HeldTts
from tutor_app.call.speaker import Speaker
from tutor_app.call.tutor_turn import BARGE_IN, RESUMED, SUPERSEDED, TurnControl
from tutor_app.speech.playback import Player

REPLY = ["One two three.", "Four five six.", "Seven eight nine."]  # 3000 samples each


class Rig:
    def __init__(self, tts=None) -> None:
        self.sd = FakeSd()
        self.control = TurnControl()
        self.player = Player(self.sd, None, 16000)
        self.started: list[str] = []
        self.speaker = Speaker(tts or FakeTts(), self.player, self.control,
                               on_start=lambda turn, text, t: self.started.append(text))
        self.player.listen(self.speaker.started, self.control.notify)
        self.player.start()

    @property
    def out(self):
        return self.sd.outputs[-1]

    def synthesised(self, turn, n: int) -> None:
        """Until the first `n` sentences of `turn` are synthesised (no polling: the turn's lock)."""
        with self.control.lock:
            assert self.control.lock.wait_for(
                lambda: sum(s.synthesised for s in turn.sentences) >= n, timeout=10)

    def interrupt(self):
        turn = self.control.interrupt(BARGE_IN)
        self.speaker.stop_audio()
        return turn

    def close(self) -> None:
        self.speaker.close()
        self.player.close()


@pytest.fixture
def rig():
    made: list[Rig] = []

    def make(**kwargs) -> Rig:
        made.append(Rig(**kwargs))
        return made[-1]

    yield make
    for r in made:
        r.close()


def _say_all(rig: Rig, turn) -> None:
    for sentence in REPLY:
        rig.speaker.say(turn, sentence)


def test_barge_in_during_the_last_sentence_keeps_what_was_heard(rig):
    r = rig()
    turn = r.control.begin()
    _say_all(r, turn)
    r.synthesised(turn, 3)
    r.out.pull(6000)  # sentences 1 and 2
    r.out.pull(1500)  # half of the last one
    assert r.interrupt() is turn
    r.speaker.wait_done(turn)  # returns at once: the turn is cancelled
    assert r.speaker.heard(turn) == "One two three. Four five six. Seven eight"
    assert np.count_nonzero(r.out.pull(3000)) == 0  # the rest was dropped, never played
    assert turn.interrupted and turn.reason == BARGE_IN


def test_barge_in_during_synthesis_plays_nothing_of_that_sentence(rig):
    tts = HeldTts()
    r = rig(tts=tts)
    turn = r.control.begin()
    r.speaker.say(turn, REPLY[0])
    assert tts.entered.wait(10)  # the TTS thread is inside synthesis now
    assert r.interrupt() is turn
    tts.release.set()
    r.speaker.say(turn, REPLY[1])  # the engine had one more sentence: refused
    r.speaker.wait_done(turn)
    with r.control.lock:
        r.control.lock.wait_for(lambda: r.speaker._working is None, timeout=10)
    assert r.player.queued_samples() == 0 and not r.player.busy
    assert r.speaker.heard(turn) == ""
    assert [s.text for s in turn.sentences] == [REPLY[0]]


def test_barge_in_after_the_reply_ended_changes_nothing(rig):
    r = rig()
    turn = r.control.begin()
    _say_all(r, turn)
    r.synthesised(turn, 3)
    r.out.pull(9000)
    r.out.pull(1000)  # drained: the player goes idle
    r.speaker.wait_done(turn)
    r.control.finish(turn)
    assert r.interrupt() is None
    assert not turn.cancelled
    assert r.speaker.heard(turn) == " ".join(REPLY)


def test_barge_in_twice_in_a_row_stops_once_and_spares_the_next_turn(rig):
    r = rig()
    first = r.control.begin()
    _say_all(r, first)
    r.synthesised(first, 1)
    r.out.pull(1000)
    assert r.interrupt() is first
    assert r.interrupt() is None  # the second message finds nothing live
    assert first.reason == BARGE_IN
    second = r.control.begin()
    r.speaker.say(second, "Sure.")
    r.synthesised(second, 1)
    assert not second.cancelled
    r.out.pull(2000)
    r.speaker.wait_done(second)
    assert r.speaker.heard(second) == "Sure."


def test_a_new_turn_supersedes_a_live_one(rig):
    r = rig()
    first = r.control.begin()
    second = r.control.begin()
    assert first.cancelled and first.reason == SUPERSEDED and not second.cancelled
    assert second.gen == first.gen + 1


def test_a_speculative_turn_retracted_before_its_first_sample_leaves_nothing(rig):
    tts = HeldTts()
    r = rig(tts=tts)
    shown: list[int] = []
    turn = r.control.begin(speculative=True, on_commit=lambda t: shown.append(t.gen))
    r.speaker.say(turn, REPLY[0])
    assert tts.entered.wait(10)
    assert turn.cancel(RESUMED)  # the learner went on talking
    tts.release.set()
    assert turn.wait_committed() is False and turn.retracted
    assert not turn.commit()
    r.speaker.wait_done(turn)
    assert shown == [] and r.started == [] and r.player.queued_samples() == 0


def test_a_speculative_turn_commits_at_its_first_sample_and_then_cannot_be_retracted(rig):
    r = rig()
    shown: list[int] = []
    turn = r.control.begin(speculative=True, on_commit=lambda t: shown.append(t.gen))
    assert not turn.committed
    r.speaker.say(turn, REPLY[0])
    r.synthesised(turn, 1)
    assert turn.wait_committed() and shown == [turn.gen]
    assert not turn.cancel(RESUMED)  # too late: the learner's next words are a new turn
    assert r.interrupt() is turn  # but a barge-in still stops it
    assert turn.interrupted


def test_commit_and_retract_race_has_exactly_one_winner():
    for _ in range(200):
        control = TurnControl()
        commits: list[int] = []
        turn = control.begin(speculative=True, on_commit=lambda t: commits.append(1))
        go = threading.Barrier(2)
        results: dict[str, bool] = {}

        def commit() -> None:
            go.wait()
            results["commit"] = turn.commit()

        def retract() -> None:
            go.wait()
            results["retract"] = turn.cancel(RESUMED)

        threads = [threading.Thread(target=commit), threading.Thread(target=retract)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert results["commit"] != results["retract"]
        assert len(commits) == (1 if results["commit"] else 0)
        assert turn.retracted == results["retract"]


def test_a_held_speculative_turn_is_synthesised_but_plays_only_once_released(rig):
    """A `likely` turn's reply (call/listen/endpointing.py RELEASE): its first sentence is
    ready during the sentence wait; nothing plays, nothing is shown before the release."""
    tts = HeldTts()
    r = rig(tts=tts)
    shown: list[int] = []
    turn = r.control.begin(speculative=True, on_commit=lambda t: shown.append(t.gen), held=True)
    r.speaker.say(turn, REPLY[0])
    assert tts.entered.wait(10)
    tts.release.set()  # synthesised: the TTS thread now waits on the hold (or is about to)
    assert not turn.committed and shown == [] and r.player.queued_samples() == 0
    turn.release()
    assert turn.wait_committed() and shown == [turn.gen]
    r.synthesised(turn, 1)
    assert r.player.queued_samples() > 0


def test_a_held_turn_the_learner_talks_on_through_is_retracted_unheard(rig):
    tts = HeldTts()
    r = rig(tts=tts)
    turn = r.control.begin(speculative=True, held=True)
    r.speaker.say(turn, REPLY[0])
    assert tts.entered.wait(10)
    tts.release.set()
    assert turn.cancel(RESUMED)  # wakes the waiting TTS thread: nothing of it plays
    assert turn.play() is False and turn.retracted
    r.speaker.wait_done(turn)
    assert r.started == [] and r.player.queued_samples() == 0


def test_a_commit_ends_a_hold():
    control = TurnControl()
    turn = control.begin(speculative=True, held=True)
    assert turn.held and turn.commit() and not turn.held and turn.play()
    assert not control.begin(held=True).held  # only a speculative turn is ever held


def test_a_paused_turn_stays_live_and_either_resumes_or_is_cut():
    control = TurnControl()
    assert control.begin(speculative=True) and control.pause() is None  # nothing of it plays yet
    turn = control.begin()
    assert control.pause() is turn and turn.paused
    assert not turn.cancelled and not turn.interrupted  # a pause is not an interruption
    assert control.resume() is turn and not turn.paused and turn.resumes == 1
    assert control.resume() is None  # resumed once: nothing more to resume
    control.pause()
    assert control.interrupt(BARGE_IN) is turn and turn.interrupted and not turn.paused
    assert control.pause() is None  # cut: nothing left to pause


class LeadTts(FakeTts):
    """Each sentence after 800 samples (50 ms) of digital silence, as Piper starts one."""

    def synthesize(self, text: str):
        for part in super().synthesize(text):
            yield np.concatenate([np.zeros(800, np.float32), part])


def test_the_replys_first_sentence_starts_without_its_lead_silence_and_the_next_keeps_its_pause(rig):
    r = rig(tts=LeadTts())
    turn = r.control.begin()
    r.speaker.say(turn, "One two.")
    r.speaker.say(turn, "Three four.")
    r.synthesised(turn, 2)
    first = r.out.pull(80 + 2000)
    assert np.count_nonzero(first[:80]) == 0 and np.all(first[80:] != 0)  # 5 ms kept before the sound
    second = r.out.pull(800 + 2000)
    assert np.count_nonzero(second[:800]) == 0 and np.all(second[800:] != 0)  # the pause between sentences
    r.out.pull(1000)  # drained: the player goes idle
    r.speaker.wait_done(turn)
    assert r.speaker.heard(turn) == "One two. Three four."


def test_without_lead_keeps_loud_starts_and_silent_chunks_whole():
    from tutor_app.speech.tts import without_lead

    loud = np.full(100, 0.5, np.float32)
    assert without_lead(loud, 16000) is loud
    quiet = np.zeros(100, np.float32)
    assert without_lead(quiet, 16000) is quiet
    lead = np.concatenate([np.zeros(1000, np.float32), loud])
    assert len(without_lead(lead, 22050)) == 100 + int(22050 * 0.005)
