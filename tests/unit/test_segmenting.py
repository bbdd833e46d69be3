"""The segmenting strategy (call/listen/segmenting.py) on scripted VAD probabilities: the
utterance's span, its silence, the learner's within-turn pauses, and a hold."""
from __future__ import annotations

from tutor_app.call.listen.segmenting import Segmenting
from tutor_app.call.options import EndpointingOptions, frames
from tutor_app.speech.segmenter import SpeechStarted, UtteranceEnded

OPTIONS = EndpointingOptions(vad_silence_ms=600, min_speech_ms=250, preroll_ms=300)
CONFIRM = frames(250)  # 8 frames of voice start an utterance


def _feed(seg: Segmenting, probabilities: list[float]) -> list:
    """Feed; return (index, events) of the frames that had events, and for the frames inside
    an utterance the pauses that voice ended."""
    events, pauses = [], []
    for p in probabilities:
        step = seg.feed(p)
        if step.events:
            events.append((step.index, step.events[0]))
        if step.was_speaking and seg.speaking and step.voiced:
            pause = seg.voice(step.index)
            if pause is not None:
                pauses.append(pause)
    return events, pauses


def test_an_utterance_starts_with_its_preroll_and_counts_its_silence():
    seg = Segmenting(OPTIONS)
    events, _ = _feed(seg, [0.0] * 20 + [0.9] * CONFIRM)
    index, started = events[0]
    assert isinstance(started, SpeechStarted) and index == 20 + CONFIRM - 1
    assert seg.start == 20 - frames(300) and seg.last_voice == index
    _feed(seg, [0.0] * 5)
    assert seg.silence(seg.index - 1) == 5


def test_pauses_long_enough_to_be_pauses_are_measured_word_gaps_are_not():
    seg = Segmenting(OPTIONS)
    _, pauses = _feed(seg, [0.9] * 10 + [0.0] * 10 + [0.9] * 3 + [0.0] * 5 + [0.9] * 3)
    assert pauses == [10 * 32]  # 320 ms; the 160 ms gap is between words (under min_pause_ms)


def test_soft_syllables_inside_an_utterance_are_voice():
    seg = Segmenting(OPTIONS)
    _feed(seg, [0.9] * 10)
    step = seg.feed(0.4)  # under the threshold, over the lower one a talking learner keeps
    assert step.voiced and seg.speaking


def test_the_silence_window_ends_the_utterance_and_a_hold_restarts_it():
    seg = Segmenting(OPTIONS)
    _feed(seg, [0.9] * 10)
    events, _ = _feed(seg, [0.0] * 10)
    assert not events
    seg.hold(seg.index - 1)  # the silence so far was the tutor's echo hiding the voice
    assert seg.silence(seg.index - 1) == 0
    events, _ = _feed(seg, [0.0] * (frames(600) - 1))
    assert not events  # 600 ms from the hold, not from the last voice
    events, _ = _feed(seg, [0.0])
    assert isinstance(events[0][1], UtteranceEnded) and events[0][1].end_frame == 10


def test_the_silence_window_is_the_thinking_time_once_a_judge_decides():
    seg = Segmenting(EndpointingOptions(thinking_ms=1000, judge=True))
    _feed(seg, [0.9] * 10)
    events, _ = _feed(seg, [0.0] * 30)
    assert not events  # 960 ms: the judge decides earlier; the window is only the backstop
    events, _ = _feed(seg, [0.0] * 2)
    assert isinstance(events[0][1], UtteranceEnded)


def test_idle_keeps_what_a_new_utterance_could_start_in():
    seg = Segmenting(OPTIONS)
    assert seg.idle_frames == frames(300) + frames(600) + 4 * CONFIRM
