"""The seams whose signatures use only core types: what the engine side (tutor/engine.py,
tutor/reply_stream.py, the call loop and speaker) really calls on the chat model,
the voice, the VAD, the emotion scorer and the embedder, and nothing more. A seam that
mentions a package's own types lives in that package's ports.py (speech, memory,
practice, tutor), so core imports nothing of ours. Each real engine satisfies its seam
(mypy checks it at the composition root, tutor_app/app.py; tests/unit/test_protocols.py
is the quick guard); tests may substitute small fakes at the seam, never for the product
under test. All are runtime-checkable: integration tests check the real engines with
isinstance."""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from tutor_app.core.cancel import Cancellable
from tutor_app.core.types import AudioClip, ChatMessage, EmotionScore, SpeechSpan

if TYPE_CHECKING:
    import numpy as np


@runtime_checkable
class TextToSpeech(Protocol):
    @property
    def sample_rate(self) -> int: ...

    @property
    def rate(self) -> float: ...

    def set_rate(self, rate: float) -> None:
        """Speak at `rate` x the voice's speed from the next sentence on."""
        ...

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
class LiveVad(Protocol):
    """One live stream of speech probabilities (its own state)."""

    def probability(self, frame: "np.ndarray") -> float: ...
    def reset(self) -> None: ...


@runtime_checkable
class VadStreams(Protocol):
    """A VAD that runs more than one live stream on its model (the call's microphone as the
    canceller cleaned it, and the raw microphone: call/listen/near_end.py)."""

    def stream(self) -> LiveVad: ...


@runtime_checkable
class ChatModel(Protocol):
    name: str

    def stream(
        self, system: "str | Sequence[tuple[str, bool]]", messages: Sequence[ChatMessage],
        cancel: Cancellable | None = None,
    ) -> Iterator[str]:
        """Yield text deltas of the reply; stops early when `cancel` is set. `system` is a
        string or (text, cacheable) parts: the leading cacheable run is prompt-cached."""
        ...

    def complete_json(self, system: "str | Sequence[tuple[str, bool]]", messages: Sequence[ChatMessage],
                      schema: dict[str, Any] | None = None) -> dict[str, Any]:
        """Ask for a JSON object (shaped by `schema` where the backend can) and return it parsed."""
        ...


@runtime_checkable
class ReadsAhead(Protocol):
    """A chat model that can read a prompt's known start before the request comes (a
    local model, llm/read_ahead.py): the engine hands it the next turn's prompt, its last
    message a placeholder for the learner's line."""

    def read_ahead(self, system: "str | Sequence[tuple[str, bool]]", messages: Sequence[ChatMessage]) -> None: ...


@runtime_checkable
class EmotionScorer(Protocol):
    def score(self, text: str) -> list[EmotionScore]:
        """All 28 GoEmotions labels, highest first."""
        ...


@runtime_checkable
class Embedder(Protocol):
    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> "np.ndarray":
        """L2-normalised float32 vectors, one row per text."""
        ...

    def embed_one(self, text: str) -> "np.ndarray": ...
