"""The interruption strategy (call/listen/interruption.py) on scripted voice, sounds and
words: speech confirmed over the tutor ducks it, its sound pauses it (floor.py), the
learner talking on or its words end the tutor's turn, or its words let the tutor go on."""
from __future__ import annotations

from tutor_app.call.listen.floor import FrameSound
from tutor_app.call.listen.interruption import Interruption, Over
from tutor_app.call.listen.turn_taking import BACKCHANNEL, INTERRUPTION, NOTHING
from tutor_app.call.options import InterruptionOptions, frames

CONFIRM = frames(250)  # the voice that confirmed the speech (the segmenter's min_speech_ms)
SAID = "Interviews can be stressful, so well done for going."
OPEN = FrameSound(low=0.25, flatness=0.05)  # open speech: vowels and consonants, harmonics
HUM = FrameSound(low=0.7, flatness=0.05)  # a nasal "mm": its energy under 350 Hz
NOISE = FrameSound(low=0.2, flatness=0.6)  # a cough: a flat spectrum


def _voice(over: Interruption, n: int, sound: FrameSound = OPEN, removed: float | None = 1.0) -> list[tuple[int, Over]]:
    """`n` more voiced frames of `sound` (`removed`: the dB the echo check's linear removal takes off): (voiced
    frames so far, decision) where there was one."""
    out = []
    for _ in range(n):
        decision = over.voice(sound, lambda: removed)
        if decision is not None:
            out.append((over.voiced, decision))
    return out


def _started(hidden: int = 0, sounds: list[FrameSound] | None = None) -> Interruption:
    over = Interruption(InterruptionOptions(), CONFIRM)
    assert over.started(over_tutor=True, hidden=hidden, sounds=[OPEN] * CONFIRM if sounds is None else sounds)
    return over


def test_open_speech_over_the_tutor_pauses_it_then_talking_on_ends_its_turn():
    over = _started()
    # paused at 288 ms of open voice (9 frames), words so far asked at 320 ms (10), the
    # tutor's turn ends once the learner talked on 480 ms (15 frames) over the quiet, after
    # the 3 frames its echo rings on
    assert _voice(over, 19) == [(9, Over.PAUSE), (10, Over.ASK_WORDS), (27, Over.INTERRUPT)]
    assert over.paused and over.undecided


def test_only_voice_captured_once_the_tutor_was_quiet_is_talking_on():
    # The audio thread fell behind (it waited for the words of earlier speech over the
    # tutor): the frames it catches up on after the pause were captured while the tutor
    # still played (their far end is loud). They do not count; each restarts the echo's
    # tail (5 frames), then 15 frames over the quiet end the tutor's turn.
    over = _started()
    assert _voice(over, 1) == [(9, Over.PAUSE)]
    for _ in range(30):
        assert over.voice(OPEN, lambda: 1.0, tutor_played=True) in (None, Over.ASK_WORDS)
    assert over.paused and not over.talk
    assert _voice(over, 20) == [(59, Over.INTERRUPT)]  # 39 + 5 + 15


def test_two_sounds_with_a_breath_between_do_not_add_up_to_talking_on():
    # "Mm-hmm. ... Mm-hmm." over the tutor: the first paused it; 10 voiced frames of each
    # after the pause (the echo's tail past), a 320 ms quiet between them
    over = _started()
    assert _voice(over, 1) == [(9, Over.PAUSE)]
    _voice(over, 3 + 10)
    for _ in range(10):
        over.quiet()
    assert _voice(over, 10) == []  # 10 since the gap, not 20: no interruption
    assert over.paused and over.undecided
    # words that run on with short gaps do add up
    for _ in range(9):
        over.quiet()
    assert _voice(over, 5) == [(37, Over.INTERRUPT)]


def test_a_hum_or_a_cough_do_not_pause_it_until_no_backchannel_is_that_long():
    for sound, why in ((HUM, "hum"), (NOISE, "noise")):
        over = _started(sounds=[sound] * CONFIRM)
        # 480 ms of voice: a looped-back "Mm-hmm." - no pause, its words decide at its end
        assert _voice(over, 7, sound) == [(10, Over.ASK_WORDS)], why
        assert not over.paused and over.why == why
        # ... but 900 ms of voice (29 frames) is never a backchannel: paused whatever it sounds like
        assert _voice(over, 14, sound) == [(29, Over.PAUSE)], why


def test_the_tutors_own_echo_never_pauses_it_however_long():
    # The linear removal takes 15 dB off it, as off the tutor's voice alone: residual echo
    # as a reply starts. Ducked, never paused; its words decide at its end.
    over = _started()
    assert _voice(over, 40, OPEN, removed=15.0) == [(10, Over.ASK_WORDS)]
    assert not over.paused and over.why == "echo"
    assert over.ended("so well done for going", SAID)[0] == NOTHING  # the tutor goes on
    # A second voice joins it (the removal falls under 6 dB): the floor by its sound.
    over = _started()
    _voice(over, 20, OPEN, removed=15.0)
    assert _voice(over, 4, OPEN, removed=1.0) == [(29, Over.PAUSE)]  # at its next echo check


def test_a_yeah_that_ends_as_it_is_confirmed_does_not_pause_it():
    # "Yeah." / "Right." over the tutor: AEC3 leaves them 30-320 ms of voice, mostly too
    # little to confirm (overlap.py's); one confirmed ends short of the floor, and its words decide
    over = _started()
    assert not over.paused
    assert over.ended("Yeah.", SAID) == (BACKCHANNEL, "Yeah")


def test_without_a_canceller_the_sound_alone_decides():
    over = _started()
    assert _voice(over, 2, OPEN, removed=None) == [(9, Over.PAUSE), (10, Over.ASK_WORDS)]


def test_the_start_aec3_hid_counts_as_voice_for_its_sound_not_for_its_length():
    over = _started(hidden=20)  # the learner had been talking 640 ms when the VAD heard them
    assert _voice(over, 1) == [(29, Over.PAUSE)]  # open speech: the floor at once
    assert _voice(over, 1) == [(30, Over.ASK_WORDS)]
    # A hum with a start AEC3 "hid" (an estimate the tutor's own voice can lengthen as a
    # reply begins): only the voice the VAD heard makes it too long for a backchannel.
    over = _started(hidden=20, sounds=[HUM] * CONFIRM)
    assert _voice(over, 21, HUM) == [(29, Over.ASK_WORDS), (49, Over.PAUSE)]  # 8 + 21 = 29 frames heard


def test_no_tutor_or_no_interruptions_nothing_to_decide():
    over = Interruption(InterruptionOptions(), CONFIRM)
    assert not over.started(over_tutor=False, hidden=0) and not over.undecided
    assert _voice(over, 40) == []
    over = Interruption(InterruptionOptions(enabled=False), CONFIRM)
    assert not over.started(over_tutor=True, hidden=0)
    assert _voice(over, 40) == []


def test_its_words_so_far_interrupt_only_when_they_ask_for_the_floor():
    over = _started()
    assert over.words_so_far("Wait,", SAID)
    assert not over.words_so_far("Mm-hmm.", SAID)
    assert not over.words_so_far("Can I ask you something?", SAID)  # at 320 ms more than a word or two is echo
    over.stop()
    assert not over.words_so_far("Wait,", SAID)  # decided already: nothing more to stop


def test_its_words_at_its_end_say_what_it_was():
    over = _started()
    _voice(over, 7, HUM)  # 15 frames: 480 ms of voice
    assert over.ended("Mm-hmm.", SAID) == (BACKCHANNEL, "Mm-hmm")
    assert over.ended("I think we should go", SAID) == (INTERRUPTION, "")
    assert over.ended("I really think we should go to the", SAID) == (NOTHING, "")  # more than 480 ms holds
    assert over.ended("so well done for gold", SAID) == (NOTHING, "")  # the tutor's own words leaking back
    assert over.stop() and not over.stop()  # ducked once, un-ducked once


def test_a_paused_tutor_is_no_longer_paused_once_decided():
    over = _started()
    _voice(over, 3)
    assert over.paused
    assert over.ended("Okay.", SAID) == (BACKCHANNEL, "Okay")  # the Listener resumes it
    assert over.stop() and not over.paused


def test_a_hum_shorter_than_a_backchannel_can_be_is_never_ended_by_words_alone():
    # A looped-back "Mm-hmm." over the tutor: 26 voiced frames of hum, never the floor by its
    # sound; Whisper made six words of the tutor's residual echo round it. A learner does not
    # say four words as "mm": the tutor goes on. A floor word still stops it.
    over = _started(sounds=[HUM] * CONFIRM)
    assert _voice(over, 18, HUM) == [(10, Over.ASK_WORDS)]
    assert not over.paused
    assert over.ended("So tell me which company it", SAID) == (NOTHING, "")
    assert over.ended("Mm-hmm, so tell me which company", SAID)[0] == BACKCHANNEL
    assert over.ended("Wait, tell me which company", SAID)[0] == INTERRUPTION
    open_speech = _started()
    _voice(open_speech, 10)  # 18 frames of open voice (paused at 9): room for six words
    assert open_speech.ended("So tell me which company it", SAID)[0] == INTERRUPTION


def test_a_hum_after_the_pause_does_not_talk_on_until_it_is_longer_than_a_backchannel():
    # The tutor's residual echo made the start of a looped-back "Mm-hmm." open speech: paused
    # at 9 frames; 15 frames of hum over the quiet are no sentence, its words decide at its end.
    over = _started()
    assert _voice(over, 1) == [(9, Over.PAUSE)]
    assert _voice(over, 3 + 15, HUM) == [(10, Over.ASK_WORDS)]
    assert over.paused and over.undecided
    assert over.ended("Mm-hmm.", SAID) == (BACKCHANNEL, "Mm-hmm")
    # Longer than any backchannel (900 ms: 29 frames), it talks on whatever it sounds like.
    assert _voice(over, 2, HUM) == [(29, Over.INTERRUPT)]


def test_a_long_hum_like_voice_ends_the_tutors_turn_by_its_words():
    # A low voice may sound like a hum: past 900 ms of voice its words decide as any speech's.
    over = _started(sounds=[HUM] * CONFIRM)
    _voice(over, 24, HUM)  # 32 frames: paused at 29 by its length
    assert over.paused
    assert over.ended("I do not think that is right", SAID)[0] == INTERRUPTION


def test_what_the_echo_check_calls_the_tutors_echo_never_pauses_it_and_only_a_floor_word_ends_its_turn():
    # After a cough AEC3 left 36 frames of hum-like residual echo; Whisper made six words of
    # it and they cut the reply. Past 900 ms the echo check is asked (a hum or a noise never
    # asked it on the way): the tutor's echo, not a second voice - ducked, not paused, and
    # only a floor word ends its turn.
    for sound in (HUM, NOISE):
        over = _started(sounds=[sound] * CONFIRM)
        assert _voice(over, 40, sound, removed=15.0) == [(10, Over.ASK_WORDS)]
        assert not over.paused and over.undecided
        assert over.ended("So tell me which company it", SAID) == (NOTHING, "")
        assert over.ended("Wait, tell me which company", SAID)[0] == INTERRUPTION
    # Open speech the check called the tutor's echo, shorter than a backchannel can be: Whisper
    # made "4 words" of the residual echo round a looped-back "Mm-hmm." (`bench echo`).
    over = _started()
    assert _voice(over, 7, OPEN, removed=6.2) == [(10, Over.ASK_WORDS)]
    assert over.ended("So which company is", SAID) == (NOTHING, "")
    assert over.ended("Sorry, which company is", SAID)[0] == INTERRUPTION
    # The check asked at 900 ms finds a second voice: paused, and the words decide as any speech's.
    over = _started(sounds=[HUM] * CONFIRM)
    assert _voice(over, 21, HUM, removed=2.0) == [(10, Over.ASK_WORDS), (29, Over.PAUSE)]
    assert over.ended("I do not think that is right", SAID)[0] == INTERRUPTION
