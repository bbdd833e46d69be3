"""Plain value types shared across the app."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    import numpy as np

# The audio constants, defined here only. Hz, mono: what every speech model here takes
# (Whisper, the VAD, Smart Turn, the echo canceller); the microphone is resampled to it,
# the voices' own rates are theirs.
SAMPLE_RATE = 16000
# One VAD frame (Silero takes 512 samples at 16 kHz): the unit turn-taking counts time in.
FRAME_SAMPLES = 512
FRAME_MS = FRAME_SAMPLES * 1000 / SAMPLE_RATE  # 32 ms

EMOTION_LABELS: tuple[str, ...] = (
    "admiration", "amusement", "anger", "annoyance", "approval", "caring", "confusion",
    "curiosity", "desire", "disappointment", "disapproval", "disgust", "embarrassment",
    "excitement", "fear", "gratitude", "grief", "joy", "love", "nervousness", "optimism",
    "pride", "realization", "relief", "remorse", "sadness", "surprise", "neutral",
)  # GoEmotions order (emotions.txt)


@dataclass(frozen=True)
class EmotionScore:
    label: str
    score: float

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "score": round(float(self.score), 4)}


def top_emotion(scores: "Sequence[EmotionScore] | None", neutral_ok: bool = True) -> EmotionScore | None:
    """The strongest label other than neutral (the scorer's order is not trusted); when
    there is none, neutral itself if `neutral_ok`, else None."""
    best = neutral = None
    for e in scores or ():
        if e.label == "neutral":
            neutral = neutral or e
        elif best is None or e.score > best.score:
            best = e
    return best if best is not None or not neutral_ok else neutral


@dataclass
class AudioClip:
    """Mono float32 samples in [-1, 1] at `sample_rate`."""

    samples: "np.ndarray"
    sample_rate: int

    @property
    def seconds(self) -> float:
        return len(self.samples) / float(self.sample_rate) if self.sample_rate else 0.0


@dataclass(frozen=True)
class Word:
    start: float
    end: float
    word: str
    probability: float


@dataclass(frozen=True)
class Segment:
    start: float
    end: float
    text: str
    words: tuple[Word, ...] = ()
    # Whisper's own confidence in this segment (tutor/heard.py decides from them);
    # the defaults are a confident segment, for segments made without a decoder.
    avg_logprob: float = 0.0
    no_speech_prob: float = 0.0
    compression_ratio: float = 1.0
    # Decoded by sampling (Whisper's temperature fallback: its greedy decode looped): the
    # words are one draw of many, and their log-probabilities come from a sharpened
    # distribution, so they look surer than they are.
    sampled: bool = False


@dataclass
class Transcript:
    text: str
    language: str
    seconds: float  # duration of the input audio
    segments: list[Segment] = field(default_factory=list)
    pauses: list[tuple[float, float]] = field(default_factory=list)  # VAD-quiet stretches >= 250 ms, s
    speech_seconds: float | None = None  # what the VAD heard as speech (None: not known)


@dataclass(frozen=True)
class SpeechSpan:
    """A stretch of speech found by the VAD, in seconds from the start of the audio."""

    start: float
    end: float


@dataclass(frozen=True)
class ChatMessage:
    role: str  # "user" | "assistant"
    content: str
