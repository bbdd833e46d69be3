"""Silero VAD v6 through ONNX Runtime: speech spans of a whole clip, and a stateful
per-frame probability for a live 16 kHz stream.

The v6 graph takes `input` (frames, 64 + 512): each 512-sample frame is prefixed with
the last 64 samples of the frame before it (its context), and an LSTM state (h, c),
each (1, 1, 128), carried across calls. Rows of one call are consecutive frames, so a
whole file is one call and a live stream is one row per call; both give the same
probabilities for the same audio.

Spans of a file come from the same `Segmenter` the live path uses, so files and the
microphone agree on what counts as speech.

A clip that starts with the last clip's whole frames (a live turn asked again for its
words, longer, or heard ahead while the learner speaks: `frame_probabilities`) is read on
from where that one stopped, with its state: the same probabilities, bit for bit, for
only the new frames' work - a live turn's words then need no VAD pass of their own.
"""
from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tutor_app.core.types import FRAME_MS, FRAME_SAMPLES, SAMPLE_RATE, AudioClip, SpeechSpan
from tutor_app.speech.segmenter import Segmenter, SegmenterOptions, UtteranceEnded

if TYPE_CHECKING:
    from tutor_app.core.protocols import VoiceActivity
    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.settings import Settings

log = logging.getLogger(__name__)

MODEL_FILE = "silero_vad_v6.onnx"
READ_ON_MAX_SAMPLES = 30 * SAMPLE_RATE  # a clip this long at most is kept to be read on from (a live turn)
CONTEXT_SAMPLES = 64
STATE_SHAPE = (1, 1, 128)


@dataclass(frozen=True)
class FileVadOptions:
    """How a whole file is cut into speech spans (for STT, not for turn-taking)."""

    threshold: float = 0.5
    # Lower than the live 250 ms: a file may hold a lone short "Hi." (~250 ms of speech
    # frames); white noise at any level gave at most 4 scattered 32-ms frames over 0.5.
    min_speech_ms: int = 200
    silence_ms: int = 500  # gaps shorter than this stay inside a span
    pad_ms: int = 200  # kept on both sides of a span: word onsets and tails are quiet

    def segmenter_options(self) -> SegmenterOptions:
        return SegmenterOptions(threshold=self.threshold, silence_ms=self.silence_ms,
                                min_speech_ms=self.min_speech_ms, preroll_ms=self.pad_ms,
                                max_utterance_ms=0)


class SileroVad:
    """Satisfies `VoiceActivity`. Loading takes ~50 ms; one instance serves the app."""

    frame_samples = FRAME_SAMPLES
    sample_rate = SAMPLE_RATE

    def __init__(self, model_path: Path | str, options: FileVadOptions | None = None) -> None:
        from tutor_app.core.onnx import import_onnxruntime

        onnxruntime = import_onnxruntime()  # telemetry off
        opts = onnxruntime.SessionOptions()
        # The model is tiny: one thread is fastest and leaves the cores to Whisper.
        opts.inter_op_num_threads = 1
        opts.intra_op_num_threads = 1
        opts.log_severity_level = 3
        self.options = options or FileVadOptions()
        self._session = onnxruntime.InferenceSession(str(model_path), sess_options=opts,
                                                     providers=["CPUExecutionProvider"])
        self._lock = threading.Lock()  # the live state is one stream's state
        self._clip_lock = threading.Lock()
        self._read = _ReadClip()  # the last clip's whole frames, their probabilities, the state after them
        self.frames_run = 0  # frames the clip path ran through the model (tests)
        self._live = VadStream(self._session)

    # -- live stream ---------------------------------------------------------------------
    def reset(self) -> None:
        """Forget the live stream (call at the start of each call / after a gap)."""
        with self._lock:
            self._live.reset()

    def probability(self, frame: np.ndarray) -> float:
        """Speech probability of the next `frame_samples` samples of the live stream."""
        with self._lock:
            return self._live.probability(frame)

    def stream(self) -> VadStream:
        """Another live stream on the same model, with its own state (VadStreams)."""
        return VadStream(self._session)

    # -- whole clips ---------------------------------------------------------------------
    def frame_probabilities(self, samples_16k: np.ndarray) -> NDArray[np.float32]:
        """One probability per 512-sample frame (the last frame zero-padded). When the clip
        begins with the last clip's whole frames, only the frames after them are run."""
        samples = np.asarray(samples_16k, dtype=np.float32).reshape(-1)
        if samples.size == 0:
            return np.zeros(0, dtype=np.float32)
        pad = (-samples.size) % FRAME_SAMPLES
        frames = np.pad(samples, (0, pad)).reshape(-1, FRAME_SAMPLES)
        context = np.zeros((len(frames), CONTEXT_SAMPLES), dtype=np.float32)
        context[1:] = frames[:-1, -CONTEXT_SAMPLES:]
        rows = np.concatenate([context, frames], axis=1)
        with self._clip_lock:
            known, h, c = self._read.start_of(samples)
            outputs = [self._read.probabilities[:known]]
            self.frames_run += len(rows) - known
            for i in range(known, len(rows), 10_000):  # bounded memory on long files
                out, h, c = self._session.run(None, {"input": rows[i:i + 10_000], "h": h, "c": c})
                outputs.append(out.reshape(-1))
            probabilities = np.concatenate(outputs).astype(np.float32)
            # Whole frames only (a padded last frame is no start of a longer clip), and a
            # live turn's length at most (a long file's copy is not kept).
            if not pad and samples.size <= READ_ON_MAX_SAMPLES:
                self._read = _ReadClip(samples.copy(), probabilities, h, c)
        return probabilities

    def speech_spans(self, audio: AudioClip, options: FileVadOptions | None = None) -> list[SpeechSpan]:
        """Speech stretches in a whole clip, padded, in seconds; [] for silence or noise."""
        from tutor_app.speech.audiofile import to_mono_16k

        samples = to_mono_16k(audio)
        return spans_from_probabilities(self.frame_probabilities(samples), len(samples) / SAMPLE_RATE,
                                        options or self.options)


@dataclass(frozen=True)
class _ReadClip:
    """A clip of whole frames `frame_probabilities` read: its samples, their probabilities,
    and the LSTM state after its last frame."""

    samples: NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    probabilities: NDArray[np.float32] = field(default_factory=lambda: np.zeros(0, dtype=np.float32))
    h: NDArray[np.float32] = field(default_factory=lambda: np.zeros(STATE_SHAPE, dtype=np.float32))
    c: NDArray[np.float32] = field(default_factory=lambda: np.zeros(STATE_SHAPE, dtype=np.float32))

    def start_of(self, samples: NDArray[np.float32]) -> tuple[int, NDArray[np.float32], NDArray[np.float32]]:
        """(frames of `samples` already read, the state after them): this clip's frames when
        `samples` begins with them, else none and the initial state."""
        n = self.samples.size
        if n and samples.size >= n and np.array_equal(samples[:n], self.samples):
            return len(self.probabilities), self.h, self.c
        return 0, np.zeros(STATE_SHAPE, dtype=np.float32), np.zeros(STATE_SHAPE, dtype=np.float32)


def spans_from_probabilities(probabilities: Iterable[float], total_seconds: float,
                             options: FileVadOptions | None = None) -> list[SpeechSpan]:
    """Pure part of `speech_spans`: per-frame probabilities -> padded, merged spans."""
    options = options or FileVadOptions()
    seg_options = options.segmenter_options()
    segmenter = Segmenter(seg_options)
    events = segmenter.feed_many(probabilities) + segmenter.flush()
    frame_s = seg_options.frame_ms / 1000
    pad_s = options.pad_ms / 1000
    spans: list[SpeechSpan] = []
    for event in events:
        if not isinstance(event, UtteranceEnded):
            continue
        start = event.start_frame * frame_s  # pre-roll already is the leading pad
        end = min(total_seconds, event.end_frame * frame_s + pad_s)
        if spans and start <= spans[-1].end:
            spans[-1] = replace(spans[-1], end=max(spans[-1].end, end))
        else:
            spans.append(SpeechSpan(round(start, 3), round(end, 3)))
    return [SpeechSpan(s.start, round(s.end, 3)) for s in spans if s.end > s.start]


def quiet_stretches(probabilities: Iterable[float], threshold: float = 0.5, min_ms: float = 250.0,
                    frame_ms: float = FRAME_MS) -> list[tuple[float, float]]:
    """(start, end) in seconds of each run of non-speech frames lasting at least `min_ms`:
    the pauses inside a turn, for the fluency figures (word timings absorb pauses)."""
    out: list[tuple[float, float]] = []
    start = None
    frame_s = frame_ms / 1000
    for i, p in enumerate(list(probabilities) + [1.0]):  # a sentinel closes a trailing run
        if p < threshold:
            start = i if start is None else start
        elif start is not None:
            if (i - start) * frame_ms >= min_ms:
                out.append((round(start * frame_s, 3), round(i * frame_s, 3)))
            start = None
    return out


@dataclass(frozen=True)
class ClipSpeech:
    """One VAD pass over a clip: its speech spans, its quiet stretches (`quiet_stretches`),
    and whether its last frame is voice (the clip was cut while someone spoke)."""
    spans: list[SpeechSpan]
    pauses: list[tuple[float, float]]
    voice_at_end: bool


def speech_and_pauses(vad: VoiceActivity, samples_16k: NDArray[np.float32]) -> ClipSpeech:
    """The clip's speech from one VAD pass, voice being over the VAD's `FileVadOptions`
    threshold (a VAD without frame probabilities gives spans only, and `voice_at_end` from them)."""
    probabilities = getattr(vad, "frame_probabilities", None)
    seconds = len(samples_16k) / SAMPLE_RATE
    if probabilities is None:
        spans = vad.speech_spans(AudioClip(samples_16k, SAMPLE_RATE))
        return ClipSpeech(spans, [], bool(spans) and spans[-1].end >= seconds)
    probs = list(probabilities(samples_16k))
    options = getattr(vad, "options", None) or FileVadOptions()
    return ClipSpeech(spans_from_probabilities(probs, seconds, options),
                      quiet_stretches(probs, options.threshold), bool(probs) and probs[-1] >= options.threshold)


class VadStream:
    """A live stream of frames on a SileroVad's model: its own state, one thread's."""

    def __init__(self, session: Any) -> None:
        self._session = session  # ONNX Runtime runs one session from several threads
        self.reset()

    def reset(self) -> None:
        self._h = np.zeros(STATE_SHAPE, dtype=np.float32)
        self._c = np.zeros(STATE_SHAPE, dtype=np.float32)
        self._context = np.zeros(CONTEXT_SAMPLES, dtype=np.float32)

    def probability(self, frame: np.ndarray) -> float:
        """Speech probability of the stream's next `FRAME_SAMPLES` samples."""
        frame = np.asarray(frame, dtype=np.float32).reshape(-1)
        if frame.size != FRAME_SAMPLES:
            raise ValueError(f"VAD frames must be {FRAME_SAMPLES} samples at 16 kHz, got {frame.size}")
        row = np.concatenate([self._context, frame])[None, :]
        out, self._h, self._c = self._session.run(None, {"input": row, "h": self._h, "c": self._c})
        self._context = frame[-CONTEXT_SAMPLES:].copy()
        return float(out[0])


def load_vad(settings: Settings, registry: ModelRegistry) -> SileroVad:
    """The app's VAD from `registry.path("silero-vad")`."""
    folder = registry.path("silero-vad")
    return SileroVad(Path(folder) / MODEL_FILE)
