"""How a turn longer than Whisper's window is cut for the multilingual model: no model."""
import numpy as np

from tutor_app.core.types import SAMPLE_RATE
from tutor_app.speech.language_id import windows


def _speech(seconds: float, quiet_at: list[float]) -> np.ndarray:
    rng = np.random.default_rng(7)
    samples = (rng.standard_normal(int(seconds * SAMPLE_RATE)) * 0.2).astype(np.float32)
    for at in quiet_at:  # a 300 ms pause between words
        samples[int(at * SAMPLE_RATE):int((at + 0.3) * SAMPLE_RATE)] *= 0.001
    return samples


def test_a_turn_within_the_longest_piece_is_one_piece():
    samples = _speech(19.0, [])
    assert windows(samples) == [(0, len(samples))]


def test_pieces_cover_the_turn_end_to_end_and_are_cut_in_its_pauses():
    samples = _speech(41.0, [14.0, 31.5])
    pieces = windows(samples)
    assert pieces[0][0] == 0 and pieces[-1][1] == len(samples)
    assert all(a[1] == b[0] for a, b in zip(pieces, pieces[1:]))  # nothing lost, nothing twice
    cuts = [end / SAMPLE_RATE for _, end in pieces[:-1]]
    assert len(cuts) == 2 and 14.0 <= cuts[0] <= 14.3 and 31.5 <= cuts[1] <= 31.8, cuts
    assert all((end - begin) <= 20 * SAMPLE_RATE for begin, end in pieces)


def test_without_a_pause_the_pieces_still_keep_to_the_longest():
    samples = _speech(65.0, [])
    pieces = windows(samples)
    assert all(10 * SAMPLE_RATE <= end - begin <= 20 * SAMPLE_RATE for begin, end in pieces[:-1])
    assert pieces[-1][1] == len(samples) and pieces[-1][1] - pieces[-1][0] <= 20 * SAMPLE_RATE
