"""`Speaker.audible` while the speaker closes: the stop marker `close()` queues is no
sentence (it once broke the audio thread's check with a TypeError)."""
from __future__ import annotations

from tests.unit.call_fakes import FakeSd, HeldTts
from tutor_app.call.speaker import Speaker
from tutor_app.call.tutor_turn import TurnControl
from tutor_app.speech.playback import Player


def test_audible_skips_the_stop_marker_of_close():
    tts = HeldTts()
    control = TurnControl()
    player = Player(FakeSd(), None, 16000)
    speaker = Speaker(tts, player, control, on_start=lambda turn, text, t: None)
    player.listen(speaker.started, control.notify)
    player.start()
    try:
        first = control.begin()
        speaker.say(first, "One two three.")
        assert tts.entered.wait(10)  # the TTS thread is busy with `first`
        speaker._queue.put(None)  # what close() queues first
        second = control.begin()  # committed, not the one being synthesised
        assert speaker.audible(second) is False
    finally:
        tts.release.set()
        speaker.close()
        player.close()
