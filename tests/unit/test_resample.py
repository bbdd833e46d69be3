"""The app's whole-clip resampler gives what scipy.signal.resample_poly gives (the app no
longer ships SciPy; the tests keep it as the reference), for the rates a call meets."""
from __future__ import annotations

from math import gcd

import numpy as np
import pytest

from tutor_app.speech.resample import resample

signal = pytest.importorskip("scipy.signal")  # a test dependency; CI fails on a skip


@pytest.mark.parametrize("src, dst", [(22050, 16000), (22050, 48000), (22050, 44100), (48000, 16000),
                                      (44100, 16000), (16000, 22050), (8000, 16000), (16000, 48000)])
@pytest.mark.parametrize("n", [1, 7, 441, 22050])
def test_matches_scipy_resample_poly(src, dst, n):
    x = np.random.default_rng(n + src).standard_normal(n).astype(np.float32)
    g = gcd(src, dst)
    want = signal.resample_poly(x, dst // g, src // g)
    got = resample(x, src, dst)
    assert got.dtype == np.float32 and got.shape == want.shape
    np.testing.assert_allclose(got, want, atol=1e-5)


def test_a_tone_keeps_its_level_and_pitch():
    t = np.arange(22050) / 22050
    tone = (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)
    out = resample(tone, 22050, 16000)
    assert abs(np.sqrt(np.mean(out[1000:-1000] ** 2)) - 0.5 / np.sqrt(2)) < 0.005
    peak_hz = np.argmax(np.abs(np.fft.rfft(out))) * 16000 / out.size
    assert abs(peak_hz - 440) < 2


def test_same_rate_empty_and_bad_rates():
    x = np.arange(5, dtype=np.float32)
    assert np.array_equal(resample(x, 16000, 16000), x)
    assert resample(np.zeros(0, np.float32), 22050, 16000).size == 0
    with pytest.raises(ValueError):
        resample(x, 0, 16000)
