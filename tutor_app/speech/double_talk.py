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


@dataclass(frozen=True)
class GateOptions:
    block: int = 512  # 32 ms
    margin_db: float = 6.0  # a block whose echo was removed this much less than usual holds a second voice
    default_removal_db: float = 12.0  # the usual removal when the tutor alone hardly played
    echo_blocks: int = 8  # the far end of the last 256 ms can still be heard in a block
    min_far_rms: float = 0.01
    floor: float = 0.05  # what is left of a block of echo alone (-26 dB)


def keep_second_voice(raw: npt.ArrayLike, residual: npt.ArrayLike, far: npt.ArrayLike,
                      options: GateOptions | None = None) -> NDArray[np.float32]:
    """The linear residual with the blocks that hold only the tutor's echo turned down.
    A block holds a second voice when the linear removal took `margin_db` less off it than
    it usually does (the 75th percentile over blocks where the tutor played); blocks where
    the tutor played nothing are kept. Without this, Whisper made the tutor's residual
    words of a short "mm-hmm" ("So well done for gold.")."""
    o = options or GateOptions()
    mic = np.asarray(raw, dtype=np.float64).reshape(-1)
    res = np.asarray(residual, dtype=np.float64).reshape(-1)
    ref = np.asarray(far, dtype=np.float64).reshape(-1)
    n = mic.size // o.block
    if n == 0:
        return res.astype(np.float32)

    def levels(x: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(np.sqrt(np.mean(x[:n * o.block].reshape(n, o.block) ** 2, axis=1)) + 1e-9)

    removal = 20 * np.log10(levels(mic) / levels(res))
    far_level = levels(ref)
    heard = np.array([far_level[max(0, i - o.echo_blocks):i + 1].max() >= o.min_far_rms for i in range(n)])
    usual = float(np.percentile(removal[heard], 75)) if heard.sum() >= 4 else o.default_removal_db
    voice = ~heard | (removal < usual - o.margin_db)
    voice = voice | np.roll(voice, 1) | np.roll(voice, -1)  # a block either side: word edges
    gain = np.repeat(np.where(voice, 1.0, o.floor), o.block)
    out = res.copy()
    out[:n * o.block] *= gain
    return out.astype(np.float32)
