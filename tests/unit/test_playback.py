"""speech/playback.py with a fake sounddevice: played-sample accounting, clear(), pause
and resume, the output dropped on a pause or a barge-in, underruns told to the far end."""
from __future__ import annotations

import numpy as np

from tests.unit.call_fakes import FakeSd
from tutor_app.speech.playback import Player


def test_player_counts_played_samples_per_tag_and_clear_drops_the_rest():
    sd = FakeSd()
    started = []
    player = Player(sd, None, 16000)
    player.listen(lambda tag, t: started.append(tag), None)
    player.start()
    out = sd.outputs[0]
    player.play(np.full(300, 0.1), "a")
    player.play(np.full(300, 0.2), "b")
    block = out.pull(400)
    assert np.allclose(block[:300], 0.1) and np.allclose(block[300:], 0.2)
    assert player.played("a") == 300 and player.played("b") == 100
    player.clear()
    assert not player.busy and player.queued_samples() == 0
    assert np.all(out.pull(400) == 0)  # silent right after clear()
    assert player.played("b") == 100
    player.close()
    assert started == ["a", "b"]


def test_a_paused_player_holds_its_queue_silent_and_resumes_from_the_gap_between_words():
    sd = FakeSd()
    player = Player(sd, None, 16000)
    player.start()
    out = sd.outputs[0]
    word, gap = np.full(4000, 0.3, np.float32), np.zeros(800, np.float32)
    player.play(np.concatenate([word, gap, word]), "sentence")  # "word <gap> word"
    out.pull(6000)  # into the second word
    player.pause()
    assert not out.pull(2000).any() and player.busy  # silent, the rest held
    assert player.played("sentence") == 6000
    player.resume(back_s=0.15)  # the quietest 32 ms within 150 ms back: the gap
    assert 4000 <= player.played("sentence") <= 4800 and not player.paused
    rest = out.pull(8800 - player.played("sentence") + 10)
    assert rest[-11] == np.float32(0.3) and not rest[-10:].any()  # the second word again, whole
    assert player.played("sentence") == 8800 and not player.busy
    player.play(np.full(100, 0.1), "next")
    player.pause()
    player.clear()  # a barge-in ends the pause too: what comes next plays
    player.play(np.full(100, 0.2), "after")
    assert np.allclose(out.pull(100), 0.2)
    player.close()


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def _latent_player(tap=None, flush=True, restart_replies=None):
    """A player on a fake stream that reports 50 ms of output latency (800 samples at
    16 kHz) and a clock the test moves: each pull is one 25 ms block later."""
    sd = FakeSd()
    sd.output_latency = 0.05
    clock = _Clock()
    player = Player(sd, None, 16000, far_tap=tap, flush=flush, restart_replies=restart_replies, clock=clock)
    player.start()
    out = sd.outputs[0]

    def pull(n: int = 400):
        clock.now += n / 16000
        return out.pull(n)
    return player, out, clock, pull


def test_a_pause_drops_what_the_sound_system_holds_and_a_resume_plays_it_again():
    from tutor_app.speech.aec import FarEndTap

    tap = FarEndTap()
    player, out, clock, pull = _latent_player(tap)
    ramp = np.arange(1, 8001, dtype=np.float32) / 8000  # every sample tells where it is
    player.play(ramp, "sentence")  # with a canceller: no restart for the reply's start
    for _ in range(15):
        pull()  # 6000 samples handed out; the last 800 are still in the buffers
    player.pause()
    assert out.starts == 2 and out.active  # aborted and started again: the buffers are gone
    assert not player.finished.is_set()  # our own abort is no lost device
    assert player.played("sentence") == 5200 and player.stats.flushes == 1
    assert [e for e in tap.drain() if len(e) == 2] == [("start", 16000), ("flushed", clock.now)]
    assert not pull().any()  # paused: silence
    player.resume(back_s=0.0)
    assert pull(400)[0] == ramp[5200]  # the dropped samples again, from the first one
    player.pause()
    player.pause()  # already paused: nothing more to drop
    assert out.starts == 3
    player.close()


def test_a_drop_across_two_sentences_puts_the_first_back_without_announcing_it_twice():
    player, out, clock, pull = _latent_player()
    started: list = []
    player.listen(lambda tag, t: started.append(tag), None)
    player.play(np.full(300, 0.1, np.float32), "a")
    player.play(np.full(3000, 0.2, np.float32), "b")
    pull()  # all of "a" and 100 of "b": none of it due yet
    player.pause()
    assert player.played("a") == 0 and player.played("b") == 0
    player.resume()
    block = pull()
    assert np.allclose(block[:300], 0.1) and np.allclose(block[300:], 0.2)
    player.close()
    assert started == ["a", "b"]


def test_a_barge_in_drops_the_buffers_too_and_counts_only_what_played():
    player, out, clock, pull = _latent_player()
    player.play(np.full(8000, 0.1, np.float32), "sentence")
    for _ in range(10):
        pull()
    player.clear()
    assert out.starts == 3 and player.played("sentence") == 3200 and not player.busy
    player.clear()  # nothing playing: no restart
    assert out.starts == 3
    player.close()


def test_without_flush_the_buffers_play_out():
    player, out, clock, pull = _latent_player(flush=False)
    player.play(np.full(8000, 0.1, np.float32), "sentence")
    for _ in range(10):
        pull()
    player.pause()
    assert out.starts == 1 and player.played("sentence") == 4000
    player.close()


def test_an_output_that_will_not_restart_is_a_lost_device():
    player, out, clock, pull = _latent_player()
    player.play(np.full(8000, 0.1, np.float32), "sentence")
    pull()

    def gone() -> None:
        raise RuntimeError("device unavailable")
    out.start = gone
    player.pause()
    assert player.finished.is_set()
    player.close()


def test_a_device_slow_to_restart_is_left_to_play_out():
    player, out, clock, pull = _latent_player()
    player.play(np.full(16000, 0.1, np.float32), "sentence")
    pull()
    real_start = out.start

    def slow_start() -> None:
        clock.now += 0.2  # the audio thread would have waited this long
        real_start()
    out.start = slow_start
    player.pause()
    assert out.starts == 3 and not player.finished.is_set()
    player.resume()
    pull()
    player.pause()  # no second restart: what the device holds plays out
    assert out.starts == 3 and player.stats.flushes == 1
    player.close()


def test_player_underflow_goes_idle():
    sd = FakeSd()
    player = Player(sd, None, 16000)
    player.start()
    player.play(np.full(100, 0.1), 1)
    assert player.busy
    sd.outputs[0].pull(400)
    assert not player.busy
    player.close()


def test_the_echo_reference_hears_of_an_underrun_from_the_player():
    from tutor_app.speech.aec import FarEndTap

    sd = FakeSd()
    tap = FarEndTap()
    player = Player(sd, None, 16000, far_tap=tap)
    player.start()
    player.play(np.full(1200, 0.1), 1)
    sd.outputs[0].pull(400)
    sd.outputs[0].pull(400, underflow=True)  # PortAudio: the device ran dry before this block
    blocks = tap.drain()
    assert blocks[0] == ("start", 16000)  # with a canceller a reply's start does not restart it
    assert [(len(b), flag) for b, _, flag in blocks[1:]] == [(400, False), (400, True)]
    assert player.stats.underflows == 1
    player.close()


def test_a_reply_on_an_idle_output_restarts_it_and_is_due_at_once():
    from tutor_app.speech.aec import FarEndTap

    tap = FarEndTap()
    player, out, clock, pull = _latent_player(tap, restart_replies=True)
    for _ in range(4):
        pull()  # idle: the buffers hold silence
    tap.drain()
    player.play(np.full(1600, 0.2, np.float32), "reply")
    assert out.starts == 2 and player.stats.fresh_starts == 1 and player.stats.flushes == 0
    assert player.start_latency_s == 0.0
    blocks = [pull() for _ in range(4)]
    assert all(np.allclose(b, 0.2) for b in blocks)  # the reply first in the emptied buffers
    entries = tap.drain()
    assert entries[0] == ("flushed", entries[0][1])
    # The emptied buffers fill at once: each block is due a block after the one before,
    # up to the stream's latency (800 samples), then as usual.
    due = [round(t - (100.0 + (5 + i) * 0.025), 4) for i, (_, t, _) in enumerate(entries[1:])]
    assert due == [0.0, 0.025, 0.05, 0.05]
    player.close()


def test_a_sentence_queued_while_the_last_still_sounds_does_not_restart():
    player, out, clock, pull = _latent_player()
    player.play(np.full(300, 0.1, np.float32), "one")  # the reply's start: a restart
    pull()  # handed out, not yet heard
    assert not player.busy
    player.play(np.full(400, 0.2, np.float32), "two")  # its tail still in the buffers
    assert out.starts == 2 and np.allclose(pull(), 0.2)  # straight after it
    for _ in range(4):
        pull()  # all of it heard
    player.play(np.full(400, 0.3, np.float32), "three")
    assert out.starts == 3 and player.stats.fresh_starts == 2
    assert player.played("one") == 300 and player.played("two") == 400
    player.close()


def test_without_flush_a_reply_waits_behind_the_buffers():
    player, out, clock, pull = _latent_player(flush=False)
    pull()
    player.play(np.full(400, 0.1, np.float32), "reply")
    assert out.starts == 1 and player.start_latency_s == 0.05
    player.close()


def test_with_an_echo_canceller_a_reply_does_not_restart_the_output_by_default():
    from tutor_app.speech.aec import FarEndTap

    player, out, clock, pull = _latent_player(FarEndTap())
    pull()
    player.play(np.full(400, 0.1, np.float32), "reply")
    assert out.starts == 1 and player.stats.fresh_starts == 0 and player.start_latency_s == 0.05
    player.close()
