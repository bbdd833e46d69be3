"""The residual echo suppressor (speech/residual_echo.py): what the linear removal left of
the tutor is turned down where the tutor played alone, the learner talking over it is not."""
from __future__ import annotations

import numpy as np

from tests.unit.test_double_talk import _speechlike
from tutor_app.core.types import SAMPLE_RATE
from tutor_app.speech.residual_echo import suppress_residual_echo


def _db(a: np.ndarray, b: np.ndarray) -> float:
    return 10 * float(np.log10(np.sum(a.astype(np.float64) ** 2) / np.sum(b.astype(np.float64) ** 2)))


def _call(left: float = 0.1) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tutor for 5 s, the learner over it in [3, 4) s; the linear removal left `left` of
    the echo (-20 dB). -> (raw, residual, far, learner)"""
    far = _speechlike(21, 5.0)
    echo = np.roll(far, 480)  # 30 ms later
    learner = np.zeros_like(far)
    learner[3 * SAMPLE_RATE:4 * SAMPLE_RATE] = _speechlike(22, 1.0)
    return echo + learner, left * echo + learner, far, learner


def test_the_echo_left_is_turned_down_and_the_learner_kept():
    raw, residual, far, learner = _call()
    out = suppress_residual_echo(raw, residual, far)
    alone = slice(SAMPLE_RATE, 3 * SAMPLE_RATE)
    assert _db(residual[alone], out[alone]) >= 12  # the residual 20 dB down takes another 12+
    both = slice(3 * SAMPLE_RATE, 4 * SAMPLE_RATE)
    assert abs(_db(out[both], learner[both])) <= 1.5  # the learner's level, within 1.5 dB ...
    assert np.corrcoef(out[both], learner[both])[0, 1] >= 0.95  # ... and the learner's voice


def test_without_the_tutor_the_microphone_passes_untouched():
    raw, residual, far, _ = _call()
    quiet = np.zeros_like(far)
    learner_only = residual - 0.1 * np.roll(far, 480)
    out = suppress_residual_echo(learner_only, learner_only, quiet)
    assert np.allclose(out, learner_only, atol=1e-6)  # nothing estimated: every gain is one


def test_short_and_empty_input():
    assert suppress_residual_echo(np.zeros(0), np.zeros(0), np.zeros(0)).size == 0
    few = np.ones(100, dtype=np.float32)
    assert np.array_equal(suppress_residual_echo(few, few, few), few)
