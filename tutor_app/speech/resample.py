"""Whole-clip sample-rate conversion: a polyphase windowed-sinc filter in numpy.

The same filter as `scipy.signal.resample_poly` with its defaults (Kaiser window, beta 5,
10 zero crossings per side of the lower Nyquist, DC gain 1), so a clip sounds the same as
it did through SciPy; the app carries no SciPy for this one function (74 MB of the
installer). Streams use `audio_io.StreamResampler` (continuous across blocks) instead.
"""
from __future__ import annotations

from math import gcd

import numpy as np
import numpy.typing as npt

_BETA = 5.0
_ZEROS = 10  # zero crossings of the sinc per side
_CHUNK = 4096  # output samples per step: bounds the (outputs x taps) index matrix


def _filter(up: int, down: int) -> npt.NDArray[np.float64]:
    rate = max(up, down)
    half = _ZEROS * rate
    n = np.arange(-half, half + 1, dtype=np.float64)
    h: npt.NDArray[np.float64] = np.sinc(n / rate) * np.kaiser(2 * half + 1, _BETA)
    return h * (up / float(h.sum()))  # DC gain 1 after inserting up-1 zeros between samples


def resample(samples: npt.ArrayLike, src: int, dst: int) -> npt.NDArray[np.float32]:
    """`samples` (mono) from `src` Hz to `dst` Hz; ceil(len * dst / src) samples out."""
    x = np.asarray(samples, dtype=np.float64).reshape(-1)
    if src <= 0 or dst <= 0:
        raise ValueError(f"bad sample rates {src} -> {dst}")
    g = gcd(int(src), int(dst))
    up, down = int(dst) // g, int(src) // g
    if up == down or x.size == 0:
        return x.astype(np.float32)
    h = _filter(up, down)
    half = (h.size - 1) // 2
    taps = -(-h.size // up)
    # Output m sits at c = m*down + half on the zero-stuffed grid: it sees inputs q - s
    # (q = c // up, s = 0..taps-1) through taps r + s*up (r = c % up): one row per phase.
    table = np.zeros((up, taps), dtype=np.float32)
    padded_h = np.zeros(up * taps, dtype=np.float64)
    padded_h[:h.size] = h
    table[:] = padded_h.reshape(taps, up).T
    table = np.ascontiguousarray(table[:, ::-1])  # oldest input first, as the windows run
    xp = np.concatenate([np.zeros(taps, np.float32), x.astype(np.float32), np.zeros(taps, np.float32)])
    windows = np.lib.stride_tricks.sliding_window_view(xp, taps)  # windows[i] = xp[i:i+taps]
    n_out = -(-x.size * up // down)
    out = np.empty(n_out, dtype=np.float32)
    for first in range(0, n_out, _CHUNK):
        q, r = np.divmod(np.arange(first, min(first + _CHUNK, n_out), dtype=np.int64) * down + half, up)
        out[first:first + len(q)] = np.einsum("ij,ij->i", windows[q + 1], table[r])
    return out
