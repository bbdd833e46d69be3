"""What the linear echo removal leaves of the tutor, suppressed under a learner's words.

The linear copy (speech/double_talk.py) leaves the tutor's echo ~20 dB down. Under a
learner who talks over the tutor at the same level (0 dB loopback) that residual was
enough for Whisper tiny.en to hear "some things" for "something" or to put an "And"
before "Sorry" in about one barge-in in four. This is a classic residual echo suppressor
(a Wiener-like gain per STFT bin): how much of the linear echo estimate is left in the
residual is measured, per frequency, on the blocks where the tutor played alone, and each
bin is turned down by the share of it that residual explains. Unlike AEC3's suppressor it
knows the residual's level and never ducks a bin the learner dominates. Only for a learner
who has the floor: it made "In a month." of a looped-back "mm-hmm" (a hum is narrowband,
under the echo's strongest bins), so short sounds are judged without it.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import NDArray

from tutor_app.core.types import FRAME_SAMPLES
from tutor_app.speech.double_talk import MIN_FAR_RMS, block_rms, second_voice

FFT = 512  # the STFT's length (32 ms), half overlapping: one frame centred on each 16 ms
HOP = FFT // 2


@dataclass(frozen=True)
class ResidualOptions:
    over: float = 2.0  # the residual's measured share is taken this many times (it varies by syllable)
    min_gain: float = 0.1  # a bin is turned down at most 20 dB (no musical noise, no lost consonants)
    min_frames: int = 8  # frames of the tutor alone needed to measure the residual
    default_share: float = 0.01  # the residual's share without them: the linear removal's usual -20 dB


def suppress_residual_echo(raw: npt.ArrayLike, residual: npt.ArrayLike, far: npt.ArrayLike,
                           options: ResidualOptions | None = None) -> NDArray[np.float32]:
    """`residual` (= `raw` minus the linear echo estimate, paired with `far`) with what is
    left of the echo turned down bin by bin. Same length as `residual`."""
    o = options or ResidualOptions()
    res = np.asarray(residual, dtype=np.float64).reshape(-1)
    mic = np.asarray(raw, dtype=np.float64).reshape(-1)
    if res.size < FFT:
        return res.astype(np.float32)
    window = np.sqrt(np.hanning(FFT + 1)[:-1])  # squared, half-overlapping: sums to one
    spectra = [np.fft.rfft(_frames(x) * window, axis=1) for x in (res, mic - res)]
    y, e = np.abs(spectra[0]) ** 2, np.abs(spectra[1]) ** 2 + 1e-12
    alone = _tutor_alone(mic, res, far, y.shape[0])
    share = (np.median(y[alone] / e[alone], axis=0) if alone.sum() >= o.min_frames
             else np.full(y.shape[1], o.default_share))
    gain = np.maximum(o.min_gain, 1.0 - o.over * share * e / (y + 1e-12))
    return _overlap_add(np.fft.irfft(spectra[0] * gain, FFT, axis=1) * window, res.size).astype(np.float32)


def _frames(x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Frame i covers samples [i * HOP - FFT, i * HOP) of `x` (zero-padded both sides)."""
    padded = np.concatenate([np.zeros(FFT), x, np.zeros(FFT)])
    return np.asarray(sliding_window_view(padded, FFT)[::HOP])


def _overlap_add(frames: NDArray[np.float64], size: int) -> NDArray[np.float64]:
    out = np.zeros((frames.shape[0] + 1) * HOP)
    out[:-HOP] += frames[:, :HOP].ravel()
    out[HOP:] += frames[:, HOP:].ravel()
    return out[FFT:FFT + size]


def _tutor_alone(mic: NDArray[np.float64], res: NDArray[np.float64], far: npt.ArrayLike,
                 count: int) -> NDArray[np.bool_]:
    """Per STFT frame: the tutor played and no second voice was in its 32 ms block."""
    voice = second_voice(mic, res, far)
    if voice.size == 0:
        return np.zeros(count, dtype=bool)
    alone = (block_rms(far) >= MIN_FAR_RMS) & ~voice
    return np.asarray(alone[np.clip((np.arange(count) * HOP - HOP) // FRAME_SAMPLES, 0, voice.size - 1)])
