"""Audio files and clips in the shape the speech models want: mono float32 at 16 kHz.

Files are decoded with PyAV (through faster-whisper's `decode_audio`), so wav, flac,
mp3, ogg, m4a ... all work. Every failure becomes one `AudioInputError` line naming the
file. Files longer than MAX_SECONDS are refused *before* decoding (cheap header read):
Tutor transcribes spoken turns, and a multi-hour file would hold the engine (and
hundreds of MB of samples) for minutes.
"""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from tutor_app.core.types import SAMPLE_RATE, AudioClip
from tutor_app.errors import AudioInputError
from tutor_app.speech.resample import resample

MAX_SECONDS = 30 * 60


def load_audio(path: Path | str, rate: int = SAMPLE_RATE, max_seconds: float = MAX_SECONDS) -> AudioClip:
    """Decode a file to mono float32 at `rate`, or raise AudioInputError."""
    path = Path(path)
    if not path.exists():
        raise AudioInputError(f"{path}: no such file")
    if not path.is_file():
        raise AudioInputError(f"{path}: not a file")
    seconds = probe_seconds(path)
    if seconds is not None and seconds > max_seconds:
        raise AudioInputError(f"{path}: audio is {_minutes(seconds)} long; the limit is "
                              f"{_minutes(max_seconds)} (split it into shorter files)")
    from faster_whisper import decode_audio

    try:
        samples = decode_audio(str(path), sampling_rate=rate)
    except Exception as exc:  # noqa: BLE001 - PyAV raises many types; all mean "unreadable"
        raise AudioInputError(f"{path}: cannot read audio ({_short(exc)})") from None
    clip = AudioClip(np.asarray(samples, dtype=np.float32), rate)
    if clip.samples.size == 0:
        raise AudioInputError(f"{path}: the audio is empty (0 samples)")
    if clip.seconds > max_seconds:  # header had no duration
        raise AudioInputError(f"{path}: audio is {_minutes(clip.seconds)} long; the limit is "
                              f"{_minutes(max_seconds)}")
    return clip


def probe_seconds(path: Path) -> float | None:
    """Duration from the container header, None when it does not say."""
    import av

    try:
        with av.open(str(path), mode="r", metadata_errors="ignore") as container:
            if container.duration:
                return container.duration / 1_000_000  # av.time_base is microseconds
            streams = container.streams.audio
            if not streams:
                raise AudioInputError(f"{path}: no audio stream in the file")
            stream = streams[0]
            if stream.duration and stream.time_base:
                return float(stream.duration * stream.time_base)
    except AudioInputError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise AudioInputError(f"{path}: cannot read audio ({_short(exc)})") from None
    return None


def to_mono_16k(clip: AudioClip, rate: int = SAMPLE_RATE) -> NDArray[np.float32]:
    """Samples of `clip` as mono float32 at `rate` (polyphase resampling when needed)."""
    raw = np.asarray(clip.samples)
    if np.issubdtype(raw.dtype, np.integer):  # PCM straight from a device or a wave module
        scale = float(np.iinfo(raw.dtype).max) + 1.0
        samples = (raw.astype(np.float32) / scale).astype(np.float32)
    else:
        samples = raw.astype(np.float32, copy=False)
    if samples.ndim == 2:  # (frames, channels): average the channels
        samples = samples.mean(axis=1, dtype=np.float32)
    if samples.ndim != 1:
        raise AudioInputError(f"audio must be mono or (frames, channels), got shape {samples.shape}")
    if clip.sample_rate <= 0:
        raise AudioInputError(f"bad sample rate {clip.sample_rate}")
    if clip.sample_rate != rate and samples.size:
        samples = resample(samples, int(clip.sample_rate), rate)
    return np.ascontiguousarray(samples, dtype=np.float32)


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def _short(exc: Exception) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    # PyAV wraps messages as "[Errno N] message: 'path'"; the caller already names the file.
    text = re.sub(r"^\[Errno -?\d+\]\s*", "", text)
    return text.split(": '")[0][:160]
