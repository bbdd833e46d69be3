"""The engine as call end (tutor/lifecycle.py, tutor/recovery.py) sees it: Protocols, not
the classes, because the engine imports lifecycle (importing the engine back would be a
cycle)."""
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tutor_app.core.protocols import ChatModel
from tutor_app.memory.ports import MemoryStore
from tutor_app.practice.ports import PracticeBook

if TYPE_CHECKING:
    from tutor_app.settings import Settings


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
