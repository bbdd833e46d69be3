"""The seams between the app and its engines. Each real engine satisfies one of these;
tests may substitute small fakes at the seam, never for the product under test."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import AudioClip, ChatMessage, EmotionScore, SpeechSpan, Transcript

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class SpeechToText(Protocol):
    def transcribe(self, audio: AudioClip | Path | str) -> Transcript:
        """Transcribe a clip or an audio file; silence/noise gives an empty text."""
        ...


@runtime_checkable
class TextToSpeech(Protocol):
    @property
    def sample_rate(self) -> int: ...

    def synthesize(self, text: str) -> Iterator["np.ndarray"]:
        """Yield float32 mono chunks, one per sentence, as soon as each is ready."""
        ...


@runtime_checkable
class VoiceActivity(Protocol):
    frame_samples: int  # samples per frame at 16 kHz for `probability`

    def speech_spans(self, audio: AudioClip) -> list[SpeechSpan]:
        """Speech stretches in a whole clip."""
        ...

    def probability(self, frame: "np.ndarray") -> float:
        """Speech probability of one live 16 kHz frame (stateful across calls)."""
        ...

    def reset(self) -> None: ...


@runtime_checkable
class ChatModel(Protocol):
    name: str

    def stream(
        self, system: "str | Sequence[tuple[str, bool]]", messages: Sequence[ChatMessage],
        cancel: CancelToken | None = None,
    ) -> Iterator[str]:
        """Yield text deltas of the reply; stops early when `cancel` is set. `system` is a
        string or (text, cacheable) parts: the leading cacheable run is prompt-cached."""
        ...

    def complete_json(self, system: "str | Sequence[tuple[str, bool]]",
                      messages: Sequence[ChatMessage]) -> dict[str, Any]:
        """Ask for a JSON object and return it parsed."""
        ...


@runtime_checkable
class EmotionScorer(Protocol):
    def score(self, text: str) -> list[EmotionScore]:
        """All 28 GoEmotions labels, highest first."""
        ...

    def score_batch(self, texts: Sequence[str]) -> list[list[EmotionScore]]: ...

    def predicted(self, scores: Sequence[EmotionScore]) -> list[str]:
        """Labels over the model's own per-label thresholds."""
        ...


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """L2-normalised float32 vectors, one row per text."""
        ...


@runtime_checkable
class MemoryStore(Protocol):
    """Long-term memory of ONE learner profile (tutor_app.memory.store.ProfileMemory).
    Every method is scoped to `profile`; there is no cross-profile read."""

    profile: str

    def add(self, text: str, *, category: str = "", memory_type: str = "semantic", importance: float = 0.5,
            source: str = "manual", session_id: str = "", meta: dict[str, Any] | None = None,
            emotion: EmotionScore | None = None, created_at: Any = None) -> Any:
        """Store one memory verbatim (embedded, committed when this returns)."""
        ...

    def recall(self, query: str, emotions: Sequence[EmotionScore] | None = None, **kwargs: Any) -> Any:
        """Memories for a turn: .hits (text, score, reason), .query_vector, .timings_ms."""
        ...

    def search(self, query: str, k: int = 5) -> list[Any]: ...

    def list(self, include_superseded: bool = True) -> list[Any]: ...

    def profile_view(self) -> dict[str, Any]: ...

    def delete(self, mem_id: str) -> Any:
        """Physical deletion (rows, old versions and files); TutorError for an unknown id."""
        ...

    def clear(self) -> int: ...

    def add_message(self, session_id: str, role: str, text: str, emotion: str = "") -> Any: ...

    def close(self) -> None: ...
