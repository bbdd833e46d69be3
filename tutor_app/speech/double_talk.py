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

from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE


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
    return linear_echo_removal(raw, far, options)[0]


def linear_echo_removal(raw: npt.ArrayLike, far: npt.ArrayLike, options: DoubleTalkOptions | None = None,
                        path: NDArray[np.float64] | None = None) -> tuple[NDArray[np.float32], NDArray[np.float64] | None]:
    """remove_echo_linearly, and the echo path it used: fitted on `raw` and `far`, or `path`
    when given (one fitted a moment ago: no fit, ~1 ms instead of 15-50). The path is None
    when the far end played nothing (nothing removed)."""
    o = options or DoubleTalkOptions()
    mic = np.asarray(raw, dtype=np.float64).reshape(-1)
    ref = np.asarray(far, dtype=np.float64).reshape(-1)
    if mic.shape != ref.shape:
        raise ValueError(f"microphone and far end differ in length ({mic.size} vs {ref.size})")
    if path is None and (mic.size == 0 or float(np.sqrt(np.mean(ref * ref))) < o.min_far_rms):
        return mic.astype(np.float32), None
    h = echo_path(ref, mic, o) if path is None else path
    return (mic - echo_of(ref, h, mic.size)).astype(np.float32), h


def echo_of(far: NDArray[np.float64], path: NDArray[np.float64], n: int) -> NDArray[np.float64]:
    """The first `n` samples of `far` through the echo `path` (an FIR from echo_path)."""
    size = _fft_size(far.size + path.size - 1)
    return np.fft.irfft(np.fft.rfft(far, size) * np.fft.rfft(path, size), size)[:n]


def echo_path(far: NDArray[np.float64], mic: NDArray[np.float64], o: DoubleTalkOptions) -> NDArray[np.float64]:
    """The FIR that best predicts `mic` from `far` (least squares, normal equations): found
    where the cross-correlation peaks, `taps` long from `lead_taps` before the peak."""
    n = far.size
    max_lag = min(n - 1, o.max_delay_ms * SAMPLE_RATE // 1000 + o.taps)
    size = _fft_size(n + max_lag + 1)  # no wrap-around up to `max_lag` (half the old 2n: ~10 ms less here)
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
    """The smallest length >= n whose factors are 2, 3 and 5 (a fast FFT, less padding than
    the next power of two)."""
    n = max(n, 2)
    best = 1 << int(np.ceil(np.log2(n)))
    p5 = 1
    while p5 < best:
        p35 = p5
        while p35 < best:
            size = p35 << max(0, int(np.ceil(np.log2(n / p35))))  # times the power of 2 that reaches n
            best = min(best, size)
            p35 *= 3
        p5 *= 5
    return best


MIN_FAR_RMS = 0.01  # a far-end block at least this loud: the tutor was audible


@dataclass(frozen=True)
class GateOptions:
    block: int = FRAME_SAMPLES  # one VAD frame, 32 ms
    margin_db: float = 6.0  # a block whose echo was removed this much less than usual holds a second voice
    # The usual removal: a high percentile over the blocks where the tutor played, as a
    # learner who talked over most of them (right as the tutor began) drags the middle down.
    usual_percentile: float = 75.0
    default_removal_db: float = 12.0  # the usual removal when the tutor alone hardly played
    echo_blocks: int = 8  # the far end of the last 256 ms can still be heard in a block
    floor: float = 0.05  # what is left of a block of echo alone (-26 dB)
    # Echo-alone blocks between stretches of second voice at most this far apart are kept
    # (0: none), for a learner who has the floor: over a 0 dB echo their soft syllables pass
    # for echo alone, and Whisper heard "and I asked" of "can I ask" with them turned down.
    # Not for judging a short sound: a pause filled there let "so well done for gold" (the
    # tutor's words) in between two "mm-hmm"s.
    keep_pause_ms: int = 0


def block_rms(x: npt.ArrayLike, block: int = FRAME_SAMPLES) -> NDArray[np.float64]:
    """The level of each whole `block` of `x` (a partial last block is left out)."""
    a = np.asarray(x, dtype=np.float64).reshape(-1)
    n = a.size // block
    return np.asarray(np.sqrt(np.mean(a[:n * block].reshape(n, block) ** 2, axis=1)))


def second_voice(raw: npt.ArrayLike, residual: npt.ArrayLike, far: npt.ArrayLike,
                 options: GateOptions | None = None) -> NDArray[np.bool_]:
    """For each block: does it hold a voice besides the tutor's echo? Yes when the linear
    removal took `margin_db` less off it than it usually does where the tutor played (a
    classic double-talk test: the echo is removed, a second voice is not), and wherever the
    tutor played nothing in the last `echo_blocks`."""
    o = options or GateOptions()
    mic, left = block_rms(raw, o.block) + 1e-9, block_rms(residual, o.block) + 1e-9
    far_level = block_rms(far, o.block)
    removal = 20 * np.log10(mic / left)
    heard = np.array([far_level[max(0, i - o.echo_blocks):i + 1].max() >= MIN_FAR_RMS
                      for i in range(far_level.size)], dtype=bool)
    usual = (float(np.percentile(removal[heard], o.usual_percentile)) if heard.sum() >= 4
             else o.default_removal_db)
    return np.asarray(~heard | (removal < usual - o.margin_db))


def keep_second_voice(raw: npt.ArrayLike, residual: npt.ArrayLike, far: npt.ArrayLike,
                      options: GateOptions | None = None, signal: npt.ArrayLike | None = None) -> NDArray[np.float32]:
    """The linear residual (or `signal` made of it) with the blocks that hold only the
    tutor's echo turned down to `floor` (second_voice; a block either side kept too: word
    edges; and pauses up to `keep_pause_ms`). Without this, Whisper made the tutor's
    residual words of a short "mm-hmm" ("So well done for gold.")."""
    o = options or GateOptions()
    res = np.asarray(residual, dtype=np.float64).reshape(-1)
    voice = second_voice(raw, res, far, o)
    n = voice.size
    if signal is not None:
        res = np.asarray(signal, dtype=np.float64).reshape(-1)
    if n == 0:
        return res.astype(np.float32)
    voice = voice | np.roll(voice, 1) | np.roll(voice, -1)
    longest = o.keep_pause_ms * SAMPLE_RATE // 1000 // o.block
    at = np.flatnonzero(voice)
    for a, b in zip(at[:-1], at[1:]):
        if b - a - 1 <= longest:
            voice[a:b] = True
    out = res.copy()
    out[:n * o.block] *= np.repeat(np.where(voice, 1.0, o.floor), o.block)
    return out.astype(np.float32)


@dataclass(frozen=True)
class OnsetOptions:
    max_lead_ms: int = 1500  # AEC3 hid up to 1.2 s of a start right as the tutor began ("Sorry, can I ask")
    max_gap_ms: int = 480  # a pause inside the speech ("Sorry, ... can I")
    min_word_ms: int = 96  # a second voice this long at least, in a row: a word, not a block the fit missed
    below_db: float = 18.0  # a block this far under the speech's loud blocks holds no voice
    # Stricter than the gate: right as the tutor begins, the fit is short and leaves 5-10 dB
    # of removal on its voice; the learner's own voice over it keeps 0-4 dB.
    gate: GateOptions = GateOptions(usual_percentile=90.0, margin_db=10.0)


def speech_onset(raw: npt.ArrayLike, residual: npt.ArrayLike, far: npt.ArrayLike, start: int,
                 stop: int | None = None, options: OnsetOptions | None = None) -> int:
    """Where speech the VAD found in samples [start, stop) of the linear `residual` really began.
    AEC3's suppressor can hide the start of speech over the tutor from the VAD: right as the
    tutor began, "Sorry, can I ask" (1.2 s) came out too soft to hear. The earliest run of
    `min_word_ms` within `max_lead_ms` before `start` that holds a second voice
    (second_voice) within `below_db` of the speech's loud blocks, joined to `start` by pauses
    no longer than `max_gap_ms`; one block earlier for its soft onset. `start` when there is
    none."""
    o = options or OnsetOptions()
    block = o.gate.block
    res = np.asarray(residual, dtype=np.float64).reshape(-1)
    first, last = start // block, min(res.size, res.size if stop is None else stop) // block
    if first <= 0 or first >= last:
        return max(0, start)
    level = 20 * np.log10(block_rms(res, block) + 1e-9)
    learner = second_voice(raw, res, far, o.gate) & (level >= np.percentile(level[first:last], 90) - o.below_db)
    lead = min(first, o.max_lead_ms * SAMPLE_RATE // 1000 // block)
    max_gap, word = (ms * SAMPLE_RATE // 1000 // block for ms in (o.max_gap_ms, o.min_word_ms))
    earliest, run = first, 0
    for b in range(first - 1, first - 1 - lead, -1):
        run = run + 1 if learner[b] else 0
        if run >= word:
            earliest = b
        elif earliest - b - run > max_gap:  # quiet longer than a pause (a run too short to be a word is quiet)
            break
    return start if earliest == first else max(0, (earliest - 1) * block)
