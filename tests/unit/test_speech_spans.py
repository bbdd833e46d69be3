"""Pure parts of the VAD and STT: spans from probabilities, joining spans, time mapping."""
import numpy as np

from tutor_app.core.types import Segment, SpeechSpan, Word
from tutor_app.speech.stt import join_spans, original_time, remap_segment
from tutor_app.speech.vad import FileVadOptions, spans_from_probabilities

FRAME = 0.032


def test_no_speech_no_spans():
    assert spans_from_probabilities([0.1] * 300, 300 * FRAME) == []
    assert spans_from_probabilities([], 0.0) == []


def test_one_span_padded_both_sides():
    probs = [0.0] * 50 + [0.9] * 50 + [0.0] * 50
    spans = spans_from_probabilities(probs, 150 * FRAME, FileVadOptions(pad_ms=192))
    assert len(spans) == 1
    assert abs(spans[0].start - (50 - 6) * FRAME) < 1e-6
    assert abs(spans[0].end - (100 * FRAME + 0.192)) < 1e-6


def test_close_spans_merge_and_far_spans_do_not():
    near = [0.9] * 20 + [0.0] * 10 + [0.9] * 20 + [0.0] * 40
    assert len(spans_from_probabilities(near, len(near) * FRAME)) == 1
    far = [0.9] * 20 + [0.0] * 60 + [0.9] * 20 + [0.0] * 40
    assert len(spans_from_probabilities(far, len(far) * FRAME)) == 2


def test_span_clipped_to_audio_length():
    probs = [0.9] * 30
    spans = spans_from_probabilities(probs, 30 * FRAME)
    assert spans[0].end <= 30 * FRAME + 1e-9


def test_join_spans_and_map_back():
    samples = np.arange(16000 * 10, dtype=np.float32)
    spans = [SpeechSpan(1.0, 2.0), SpeechSpan(5.0, 6.5)]
    joined, offsets = join_spans(samples, spans)
    assert len(joined) == 16000 * 2.5
    assert joined[0] == 16000 and joined[16000] == 5 * 16000
    assert offsets == [(0.0, 1.0), (1.0, 5.0)]
    assert original_time(0.5, offsets) == 1.5
    assert original_time(1.2, offsets) == 5.2
    assert original_time(1.0, offsets, is_end=True) == 2.0  # end on the join: first span
    assert original_time(1.0, offsets) == 5.0  # start on the join: second span


def test_remap_segment_with_words():
    offsets = [(0.0, 3.0), (2.0, 10.0)]
    seg = Segment(0.5, 2.5, "hi there", (Word(0.5, 0.9, " hi", 0.9), Word(2.1, 2.5, " there", 0.8)))
    out = remap_segment(seg, offsets)
    assert (out.start, out.end) == (3.5, 10.5)
    assert [(w.start, w.end) for w in out.words] == [(3.5, 3.9), (10.1, 10.5)]
