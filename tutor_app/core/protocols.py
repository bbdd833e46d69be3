"""The seams between the app and its engines: what the engine side (tutor/engine.py, the
call loop and speaker, tutor/turn_memory/session.py, tutor/lifecycle.py and the modules it hands the
services to) really calls on each service, and nothing more. Each real engine satisfies
one of these (mypy checks it at the composition root, tutor_app/app.py;
tests/unit/test_protocols.py is the quick guard); tests may substitute small fakes at
the seam, never for the product under test. All are runtime-checkable: integration tests
check the real engines with isinstance."""
from __future__ import annotations

import builtins
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from tutor_app.core.cancel import Cancellable
from tutor_app.core.types import AudioClip, ChatMessage, EmotionScore, SpeechSpan, Transcript

if TYPE_CHECKING:
    import numpy as np

    from tutor_app.memory.storage.index import ProfileIndex
    from tutor_app.memory.storage.models import CallRecord, Memory, Message
    from tutor_app.memory.storage.purge import PurgeResult
    from tutor_app.memory.retrieval.recall import RecallResult
    from tutor_app.practice.items import PracticeItem
    from tutor_app.practice.outcome import Outcome
    from tutor_app.settings import Settings
    from tutor_app.speech.bias import BiasList
    from tutor_app.speech.end_of_turn import Verdict


@runtime_checkable
class SpeechToText(Protocol):
    def transcribe(self, audio: AudioClip | Path | str, bias: "BiasList | None" = None) -> Transcript:
        """Transcribe a clip or an audio file; silence/noise gives an empty text. `bias`:
        names to favour (speech/bias.py `transcribe_with` passes it only when non-empty)."""
        ...


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
class TurnJudge(Protocol):
    """tutor/end_of_turn_judge.py `EndOfTurnJudge`: is a paused turn complete?"""

    def __call__(self, audio: "np.ndarray", transcript: str) -> "Verdict": ...


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


@runtime_checkable
class MemoryStore(Protocol):
    """Long-term memory of ONE learner profile (tutor_app.memory.storage.store.ProfileMemory), as
    the engine, tutor/turn_memory/session.py (with history and follow-up), call end (lifecycle,
    recovery, merge) and the speech bias list use it. Every method is scoped to `profile`."""

    profile: str
    embedder: Embedder

    def add(self, text: str, *, category: str = "", memory_type: str = "semantic", importance: float = 0.5,
            source: str = "manual", session_id: str = "", meta: dict[str, Any] | None = None,
            emotion: EmotionScore | None = None) -> "Memory":
        """Store one memory verbatim (embedded, committed when this returns)."""
        ...

    def supersede(self, old_id: str, new_id_: str) -> None: ...

    def list(self, include_superseded: bool = True) -> "list[Memory]": ...

    def recall(self, query: str, emotions: Sequence[EmotionScore] | None = None, *, k: int = 3,
               context: str = "") -> "RecallResult":
        """Memories for a turn: .hits, .query_vector, .timings_ms (memory/retrieval/recall.py)."""
        ...

    def index(self) -> "ProfileIndex": ...

    def profile_view(self) -> dict[str, Any]: ...

    def on_forget(self, listener: "Callable[[PurgeResult], None]") -> None:
        """`listener(result)` after each deletion: a live call drops the deleted lines."""
        ...

    # transcript lines and call records (memory/storage/records.py)
    def add_message(self, session_id: str, role: str, text: str, emotion: str = "", *,
                    emotion_score: float | None = None) -> "Message": ...

    def session_messages(self, session_id: str | None,
                         with_vectors: bool = False) -> "builtins.list[tuple[Message, Any]]":
        """(message, vector or None) of one session (None: every session), oldest first."""
        ...

    def record_call(self, session_id: str, started_at: datetime) -> "CallRecord": ...

    def calls(self) -> "builtins.list[CallRecord]": ...

    def update_call(self, call_id: str, *, ended_at: datetime | None = None,
                    report: dict[str, Any] | None = None, extracted: bool | None = None) -> None: ...

    def close(self) -> None: ...


@runtime_checkable
class PracticeBook(Protocol):
    """The learner's practice items (tutor_app.practice.store.PracticeStore), as the call's
    plan and its end use them (practice/calls.py `start_plan`, `after_call`)."""

    def now(self) -> datetime: ...

    def items(self) -> "list[PracticeItem]": ...

    def planned(self, session_id: str) -> "list[PracticeItem]": ...

    def mark_planned(self, session_id: str, items: "Sequence[PracticeItem]") -> None: ...

    def record(self, session_id: str, outcomes: "Sequence[Outcome]") -> None: ...

    def add_from_call(self, session_id: str, corrections: Sequence[Any], new_words: Sequence[str],
                      learner_lines: Sequence[str]) -> "list[PracticeItem]": ...


@runtime_checkable
class CallEndServices(Protocol):
    """tutor/engine.py `EngineServices` as call end (tutor/lifecycle.py, tutor/recovery.py)
    reads it. Read-only properties: a plain attribute of a subtype satisfies them."""

    @property
    def memory(self) -> MemoryStore: ...

    @property
    def chat_model(self) -> Callable[[], ChatModel]: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    @property
    def practice(self) -> PracticeBook | None: ...


@runtime_checkable
class CallEndEngine(Protocol):
    """tutor/engine.py `TutorEngine` as call end uses it. A Protocol, not the class: the
    engine imports lifecycle, so lifecycle importing the engine would be a cycle."""

    @property
    def services(self) -> CallEndServices: ...

    @property
    def settings(self) -> "Settings": ...
