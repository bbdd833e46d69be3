"""Segmenter events from scripted probabilities (32 ms frames)."""
from tutor_app.speech.segmenter import Segmenter, SegmenterOptions, SpeechStarted, UtteranceEnded

OPTS = SegmenterOptions(threshold=0.5, silence_ms=600, min_speech_ms=250, preroll_ms=300)
# in frames of 32 ms: silence 19, min speech 8, pre-roll 9


def run(probs, options=OPTS, flush=True):
    seg = Segmenter(options)
    events = []
    for i, p in enumerate(probs):
        events += [(i, e) for e in seg.feed(p)]
    if flush:
        events += [(len(probs), e) for e in seg.flush()]
    return events


def test_frames_conversion():
    assert (OPTS.frames(600), OPTS.frames(250), OPTS.frames(300)) == (19, 8, 9)


def test_speech_then_silence_gives_start_and_end():
    probs = [0.0] * 20 + [0.9] * 30 + [0.0] * 25
    events = run(probs)
    (i1, start), (i2, end) = events
    assert isinstance(start, SpeechStarted) and isinstance(end, UtteranceEnded)
    assert i1 == 20 + 7  # confirmed on the 8th speech frame
    assert start.start_frame == 20 - 9  # pre-roll
    assert (end.start_frame, end.end_frame, end.reason) == (11, 50, "silence")
    assert i2 == 50 + 19 - 1  # after 19 silent frames


def test_blip_is_ignored():
    probs = [0.0] * 10 + [0.9] * 5 + [0.0] * 40
    assert run(probs) == []


def test_short_pause_stays_in_one_utterance():
    probs = [0.9] * 20 + [0.1] * 10 + [0.9] * 20 + [0.0] * 20
    events = [e for _, e in run(probs)]
    ends = [e for e in events if isinstance(e, UtteranceEnded)]
    assert len(ends) == 1 and ends[0].end_frame == 50
    assert sum(isinstance(e, SpeechStarted) for e in events) == 1


def test_hysteresis_keeps_soft_speech():
    # 0.4 is below threshold but above neg_threshold (0.35): still speech once talking.
    probs = [0.9] * 10 + [0.4] * 30 + [0.0] * 20
    ends = [e for _, e in run(probs) if isinstance(e, UtteranceEnded)]
    assert ends[0].end_frame == 40


def test_soft_frames_alone_never_start_speech():
    assert run([0.4] * 100) == []


def test_long_silence_gives_two_utterances_and_no_overlap():
    probs = [0.9] * 20 + [0.0] * 30 + [0.9] * 20 + [0.0] * 30
    ends = [e for _, e in run(probs) if isinstance(e, UtteranceEnded)]
    assert [(e.start_frame, e.end_frame) for e in ends] == [(0, 20), (50 - 9, 70)]


def test_flush_closes_open_utterance():
    events = run([0.9] * 20)
    assert isinstance(events[-1][1], UtteranceEnded) and events[-1][1].reason == "flush"
    assert events[-1][1].end_frame == 20


def test_flush_drops_pending_blip():
    assert run([0.9] * 3) == []


def test_max_length_splits_long_speech():
    opts = SegmenterOptions(max_utterance_ms=32 * 50)
    ends = [e for _, e in run([0.9] * 120, opts) if isinstance(e, UtteranceEnded)]
    assert ends[0].reason == "max_length" and ends[0].end_frame == 50
    assert ends[1].start_frame >= ends[0].end_frame  # pre-roll never reaches back


def test_reset_restarts_frame_count():
    seg = Segmenter(OPTS)
    seg.feed_many([0.9] * 12)
    assert seg.speaking
    seg.reset()
    assert not seg.speaking
    events = seg.feed_many([0.9] * 8)
    assert events == [SpeechStarted(0, 7)]


def test_options_frames():
    opts = SegmenterOptions()
    assert (opts.frames(0), opts.frames(10), opts.frames(600)) == (0, 1, 19)


def test_event_times_in_seconds():
    end = UtteranceEnded(10, 100)
    assert round(end.start_s(), 3) == 0.32 and round(end.end_s(), 3) == 3.2


def test_hold_counts_the_silence_afresh():
    seg = Segmenter(OPTS)
    for p in [0.9] * 20 + [0.0] * 18:  # one frame short of the 19-frame silence window
        assert not any(isinstance(e, UtteranceEnded) for e in seg.feed(p))
    seg.hold()  # that silence was the echo hiding the voice
    ends = [(i, e) for i in range(19) for e in seg.feed(0.0) if isinstance(e, UtteranceEnded)]
    assert [(i, e.end_frame) for i, e in ends] == [(18, 20)]  # 19 frames after the hold; speech ended at 20


def test_a_short_sound_judged_on_its_own_starts_no_utterance():
    """Over the tutor an "mm-hm" is too short to confirm and the echo's odd voiced frame
    keeps it pending; once it is judged on its own, a second "mm-hm" starts afresh."""
    seg = Segmenter(OPTS)
    first = [0.9] * 5 + ([0.0] * 10 + [0.9]) * 2 + [0.0] * 7  # frames 0-4, echo blips at 15 and 26
    assert not any(seg.feed(p) for p in first)  # pending: 7 speech frames, never 19 silent
    seg.forget_before(5)
    events = [(i, e) for i, p in enumerate([0.9] * 8, start=len(first)) for e in seg.feed(p)]
    assert [(i, e.start_frame) for i, e in events] == [(41, 34 - 9)]  # its own 8 frames, its own pre-roll


def test_forgetting_leaves_an_utterance_in_progress():
    seg = Segmenter(OPTS)
    seg.feed_many([0.9] * 10)
    seg.forget_before(10)
    assert seg.speaking
    assert [e.start_frame for e in seg.feed_many([0.0] * 19)] == [0]
