"""The learner's words when they talk over the tutor.

AEC3 (speech/aec.py) removes the tutor's voice from the microphone well enough that the
app never hears itself, but its suppressor cannot tell the learner's voice from residual
echo while both sound: the learner's first words over the tutor come out attenuated by
20-40 dB, and Whisper lost "Sorry, can I" of "Sorry, can I ask you ...". Turn-taking still
listens to AEC3's output (no false turns); the *words* of speech that began while the
tutor was audible are taken from the microphone minus a linear estimate of the echo
instead: the echo path (a 32 ms FIR from just before the strongest tap, found by
cross-correlation within 500 ms) fitted by least squares over the utterance and the two
seconds before it, then subtracted. No suppressor: the residual echo stays ~20 dB down
(measured on the looped-back virtual sound card, whose resampling drifts; a longer fit
window did worse), under a learner who talks over it, and once playback stops there is
no echo left at all.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

RATE = 16000


@dataclass(frozen=True)
class DoubleTalkOptions:
    max_delay_ms: int = 500  # the far end leads its echo by at most this (pairing shift + the room)
    taps: int = 512  # the echo path fitted: 32 ms from just before its strongest tap (direct path, early reflections)
    lead_taps: int = 64  # taps kept before the strongest one (the resampler's filter rings early)
    regularise: float = 1e-3  # of the far end's power: no blow-up in bands the tutor hardly used
    min_far_rms: float = 1e-3  # a far end quieter than this played nothing: nothing to remove


def remove_echo_linearly(raw: npt.ArrayLike, far: npt.ArrayLike,
                         options: DoubleTalkOptions | None = None) -> NDArray[np.float32]:
    """`raw` microphone minus the echo of `far` (same length, paired sample by sample as the
    canceller paired them, the far end leading the echo) predicted by a least-squares FIR fit."""
    o = options or DoubleTalkOptions()
    mic = np.asarray(raw, dtype=np.float64).reshape(-1)
    ref = np.asarray(far, dtype=np.float64).reshape(-1)
    if mic.shape != ref.shape:
        raise ValueError(f"microphone and far end differ in length ({mic.size} vs {ref.size})")
    if mic.size == 0 or float(np.sqrt(np.mean(ref * ref))) < o.min_far_rms:
        return mic.astype(np.float32)
    h = echo_path(ref, mic, o)
    size = _fft_size(ref.size + h.size - 1)
    echo = np.fft.irfft(np.fft.rfft(ref, size) * np.fft.rfft(h, size), size)[:mic.size]
    return (mic - echo).astype(np.float32)


def echo_path(far: NDArray[np.float64], mic: NDArray[np.float64], o: DoubleTalkOptions) -> NDArray[np.float64]:
    """The FIR that best predicts `mic` from `far` (least squares, normal equations): found
    where the cross-correlation peaks, `taps` long from `lead_taps` before the peak."""
    n = far.size
    max_lag = min(n - 1, o.max_delay_ms * RATE // 1000 + o.taps)
    size = _fft_size(2 * n)
    f_far, f_mic = np.fft.rfft(far, size), np.fft.rfft(mic, size)
    cross = np.fft.irfft(np.conj(f_far) * f_mic, size)[:max_lag + 1]  # cross[k] = sum mic[t] far[t - k]
    auto = np.fft.irfft(np.abs(f_far) ** 2, size)
    taps = min(o.taps, max_lag + 1)
    start = max(0, min(int(np.argmax(np.abs(cross[:max_lag - taps + 2]))) - o.lead_taps, max_lag + 1 - taps))
    lags = np.arange(taps)
    toeplitz = auto[np.abs(lags[:, None] - lags[None, :])]
    toeplitz[lags, lags] += o.regularise * auto[0]
    h = np.zeros(start + taps)
    h[start:] = np.linalg.solve(toeplitz, cross[start:start + taps])
    return h


def _fft_size(n: int) -> int:
    return 1 << max(1, int(np.ceil(np.log2(max(n, 2)))))
