"""The interruption strategy (call/listen/interruption.py) on scripted voice and words:
speech confirmed over the tutor ducks it, its voice and its words decide."""
from __future__ import annotations

from tutor_app.call.listen.interruption import Interruption, Over
from tutor_app.call.listen.turn_taking import BACKCHANNEL, INTERRUPTION, NOTHING
from tutor_app.call.options import InterruptionOptions, frames

CONFIRM = frames(250)  # the voice that confirmed the speech (the segmenter's min_speech_ms)
SAID = "Interviews can be stressful, so well done for going."


def _voice(over: Interruption, n: int) -> list[tuple[int, Over]]:
    """`n` more voiced frames: (voiced frames so far, decision) where there was one."""
    out = []
    for _ in range(n):
        decision = over.voice()
        if decision is not None:
            out.append((over.voiced, decision))
    return out


def test_speech_over_the_tutor_ducks_it_asks_its_words_then_takes_the_floor_by_its_voice():
    over = Interruption(InterruptionOptions(), CONFIRM)
    assert over.started(over_tutor=True, hidden=0) and over.undecided
    # its words so far at 320 ms of voice (10 frames), the floor at 900 ms (29) whatever they are
    assert _voice(over, 21) == [(10, Over.ASK_WORDS), (29, Over.INTERRUPT)]


def test_the_start_aec3_hid_counts_as_voice():
    over = Interruption(InterruptionOptions(), CONFIRM)
    over.started(True, hidden=20)  # the learner had been talking 640 ms when the VAD heard them
    assert _voice(over, 1) == [(29, Over.INTERRUPT)]


def test_no_tutor_or_no_interruptions_nothing_to_decide():
    over = Interruption(InterruptionOptions(), CONFIRM)
    assert not over.started(over_tutor=False, hidden=0) and not over.undecided
    assert _voice(over, 40) == []
    over = Interruption(InterruptionOptions(enabled=False), CONFIRM)
    assert not over.started(over_tutor=True, hidden=0)
    assert _voice(over, 40) == []


def test_its_words_so_far_interrupt_only_when_they_ask_for_the_floor():
    over = Interruption(InterruptionOptions(), CONFIRM)
    over.started(True, 0)
    assert over.words_so_far("Wait,", SAID)
    assert not over.words_so_far("Mm-hmm.", SAID)
    assert not over.words_so_far("Can I ask you something?", SAID)  # at 320 ms more than a word or two is echo
    over.stop()
    assert not over.words_so_far("Wait,", SAID)  # decided already: nothing more to stop


def test_its_words_at_its_end_say_what_it_was():
    over = Interruption(InterruptionOptions(), CONFIRM)
    over.started(True, 0)
    _voice(over, 7)  # 15 frames: 480 ms of voice
    assert over.ended("Mm-hmm.", SAID) == (BACKCHANNEL, "Mm-hmm")
    assert over.ended("I really think we should go", SAID) == (INTERRUPTION, "")
    assert over.ended("so well done for gold", SAID) == (NOTHING, "")  # the tutor's own words leaking back
    assert over.stop() and not over.stop()  # ducked once, un-ducked once
