"""Smart Turn v3.2: from the sound of a turn, the probability that the speaker is done.

The model (8 MB ONNX, BSD-2, carried by the `pipecat-ai` wheel and found through the
model registry) is a Whisper-tiny encoder with a small classifier head. It is fed the
way pipecat feeds it: the turn's last 8 s of 16 kHz audio (left-padded with zeros when
shorter, so the end of the turn is always at the end of the window), including the
short silence after the last word, as 80-bin Whisper log-mel features of shape
(1, 80, 800). Its one output is already a probability (a sigmoid inside the graph).

The features are our own numpy code (no torch, no transformers): the Whisper recipe,
checked against pipecat's vendored copy of transformers' WhisperFeatureExtractor
(identical to the last bit on real clips; see tests/integration/test_smart_turn.py).
"""
from __future__ import annotations

import functools
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from tutor_app.core.types import SAMPLE_RATE
from tutor_app.errors import TutorError

if TYPE_CHECKING:
    from tutor_app.registry.manifest import ModelRegistry

MODEL_FILE = "smart-turn-v3.2-cpu.onnx"
N_FFT = 400  # 25 ms windows
HOP = 160  # 10 ms hop: 8 s -> 800 frames
N_MELS = 80
WINDOW_SECONDS = 8.0  # the model's input is fixed: 800 frames of 10 ms


@dataclass(frozen=True)
class SmartTurnOptions:
    threads: int = 1  # one decision is ~tens of ms; more threads only contend with Whisper/Piper


class SmartTurn:
    """The audio half of the end-of-turn decision. Thread-safe: ONNX Runtime sessions
    may be run from several threads; the timing fields are only informative."""

    def __init__(self, session: Any, options: SmartTurnOptions, path: Path) -> None:
        self._session = session  # an onnxruntime InferenceSession (untyped)
        self.options = options
        self.path = path
        self._input = session.get_inputs()[0].name
        self.last_ms = 0.0  # the last predict(), features + inference (for benches/reports)
        self.load_seconds = 0.0

    @classmethod
    def load(cls, path: Path | str, options: SmartTurnOptions | None = None) -> "SmartTurn":
        """`path` is the model file or the folder holding it (what the registry returns)."""
        options = options or SmartTurnOptions()
        path = Path(path)
        if path.is_dir():
            path = path / MODEL_FILE
        if not path.is_file():
            raise TutorError(f"the end-of-turn model {path} is missing: "
                             "run `tutor-app models install smart-turn-v3.2`")
        started = time.perf_counter()
        try:
            session = _open(path, options.threads)
        except Exception as exc:  # noqa: BLE001 - onnxruntime raises its own types; one clear line
            raise TutorError(f"cannot load the end-of-turn model {path.name}: {exc}") from None
        model = cls(session, options, path)
        model.load_seconds = time.perf_counter() - started
        return model

    def predict(self, audio_16k: np.ndarray) -> float:
        """Probability (0..1) that the turn in `audio_16k` (mono, 16 kHz, float in -1..1
        or int16) is complete. Pass the whole turn up to now, trailing silence included;
        only its last 8 s are used."""
        started = time.perf_counter()
        features = log_mel_features(fit_window(_as_float(audio_16k)))
        out = self._session.run(None, {self._input: features[np.newaxis]})[0]
        probability = float(np.clip(np.asarray(out).reshape(-1)[0], 0.0, 1.0))
        self.last_ms = (time.perf_counter() - started) * 1000.0
        return probability

    def warm_up(self) -> None:
        """The first run allocates ONNX Runtime's buffers (~2x slower): do it before a call."""
        self.predict(np.zeros(SAMPLE_RATE, dtype=np.float32))


def load_smart_turn(registry: ModelRegistry, options: SmartTurnOptions | None = None,
                    name: str | None = None) -> SmartTurn:
    """The manifest's default "turn" model (or `name`), through the registry. Raises
    ModelMissingError/TutorError: the caller falls back to the VAD-only rule."""
    spec = registry.get(name) if name else registry.default("turn")
    return SmartTurn.load(registry.path(spec.name), options)


# -- features --------------------------------------------------------------------------------

def fit_window(audio: NDArray[np.float32], seconds: float = WINDOW_SECONDS) -> NDArray[np.float32]:
    """The last `seconds` of audio; zeros in front when shorter (the turn's end stays last)."""
    n = int(round(seconds * SAMPLE_RATE))
    if audio.size >= n:
        return audio[-n:]
    return np.concatenate([np.zeros(n - audio.size, dtype=np.float32), audio])


def log_mel_features(window: np.ndarray) -> NDArray[np.float32]:
    """Whisper's log-mel spectrogram of an (already fitted) window: (80, len/160) float32.

    Steps as in Whisper's feature extractor with do_normalize: zero-mean unit-variance
    waveform (over the padded window), centred STFT with a periodic Hann window,
    power spectrum, Slaney mel filters, log10 floored at 1e-10, last frame dropped,
    dynamic range clipped to 8 (= 80 dB) below the peak, then scaled by (x + 4) / 4.
    """
    x = np.asarray(window, dtype=np.float32)
    x = (x - x.mean()) / np.sqrt(x.var() + 1e-7)
    padded = np.pad(x.astype(np.float64), N_FFT // 2, mode="reflect")
    frames = np.lib.stride_tricks.sliding_window_view(padded, N_FFT)[::HOP]
    power = np.abs(np.fft.rfft(frames * _hann(), axis=-1)) ** 2  # (frames, 201)
    mel = np.maximum(power @ _mel_filters(), 1e-10)  # (frames, 80)
    log_spec = np.log10(mel)[:-1].T
    log_spec = np.maximum(log_spec, log_spec.max() - 8.0)
    return np.asarray((log_spec + 4.0) / 4.0, dtype=np.float32)


@functools.cache
def _hann() -> NDArray[np.float64]:
    n = np.arange(N_FFT)
    return 0.5 - 0.5 * np.cos(2.0 * np.pi * n / N_FFT)  # periodic (torch.hann_window)


@functools.cache
def _mel_filters() -> NDArray[np.float64]:
    """(201, 80) triangular filters on the Slaney mel scale, area-normalised (librosa's
    `mel(sr=16000, n_fft=400, n_mels=80)`, which Whisper uses)."""
    fft_hz = np.linspace(0.0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    edges_hz = _mel_to_hz(np.linspace(_hz_to_mel(0.0), _hz_to_mel(SAMPLE_RATE / 2), N_MELS + 2))
    lower, centre, upper = edges_hz[:-2], edges_hz[1:-1], edges_hz[2:]
    rising = (fft_hz[:, None] - lower) / (centre - lower)
    falling = (upper - fft_hz[:, None]) / (upper - centre)
    filters = np.maximum(0.0, np.minimum(rising, falling))
    return filters * (2.0 / (upper - lower))


# Slaney's mel scale: linear below 1 kHz (200/3 Hz per mel), logarithmic above.
_F_SP = 200.0 / 3
_MIN_LOG_HZ = 1000.0
_MIN_LOG_MEL = _MIN_LOG_HZ / _F_SP
_LOG_STEP = np.log(6.4) / 27.0


def _hz_to_mel(hz: ArrayLike) -> NDArray[np.float64]:
    hz = np.asarray(hz, dtype=np.float64)
    return np.where(hz >= _MIN_LOG_HZ,
                    _MIN_LOG_MEL + np.log(np.maximum(hz, 1e-10) / _MIN_LOG_HZ) / _LOG_STEP, hz / _F_SP)


def _mel_to_hz(mel: ArrayLike) -> NDArray[np.float64]:
    mel = np.asarray(mel, dtype=np.float64)
    return np.where(mel >= _MIN_LOG_MEL, _MIN_LOG_HZ * np.exp(_LOG_STEP * (mel - _MIN_LOG_MEL)), mel * _F_SP)


def _as_float(audio: np.ndarray) -> NDArray[np.float32]:
    audio = np.asarray(audio)
    if audio.ndim != 1:
        audio = audio.reshape(-1)
    if audio.dtype == np.int16:
        return audio.astype(np.float32) / 32768.0
    return audio.astype(np.float32, copy=False)


def _open(path: Path, threads: int) -> Any:  # an onnxruntime InferenceSession (untyped)
    from tutor_app.core.onnx import load_onnx

    return load_onnx(path, threads)
