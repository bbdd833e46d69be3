"""What the modules around the store need of it, each as a small Protocol.

Profile merge (profile/merge.py) and deletion (storage/purge.py) take the store as a
parameter typed with one of these, so they never import store.py back (no cycle);
retrieval takes only the index and an embedder (core.protocols.Embedder). Each protocol lists exactly what
its module calls; `ProfileMemory` satisfies them.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from tutor_app.core.protocols import Embedder
    from tutor_app.memory.storage.db import MemoryDB
    from tutor_app.memory.storage.index import ProfileIndex
    from tutor_app.memory.storage.models import CallRecord, Memory, Message


class MergeStore(Protocol):
    """merge.py: the current memories, adding one, keeping an old value as history."""

    @property  # read-only: a store whose embedder is a subtype of Embedder fits
    def embedder(self) -> Embedder: ...

    def add(self, text: str, *, category: str = "", memory_type: str = "semantic", importance: float = 0.5,
            source: str = "manual", session_id: str = "", meta: dict[str, Any] | None = None) -> "Memory": ...
    def supersede(self, old_id: str, new_id_: str) -> None: ...
    def list(self, include_superseded: bool = True) -> "list[Memory]": ...


class PurgeStore(Protocol):
    """purge.py, the store's own deletion engine: it also works on the store's database
    handle, its profile filter and its index-keeping write (hence the private names)."""

    profile: str
    _db: "MemoryDB"
    _where: str

    def _write(self, op: Callable[[], Any], patch: Callable[["ProfileIndex"], Any] | None = None) -> None: ...
    def for_profile(self, profile: str) -> "PurgeStore": ...
    def session_messages(self, session_id: str | None,
                         with_vectors: bool = False) -> "list[tuple[Message, Any]]": ...
    def get_many(self, ids: Sequence[str]) -> "dict[str, Memory]": ...
    def calls(self) -> "list[CallRecord]": ...
    def update_call(self, call_id: str, *, report: dict[str, Any] | None = None) -> None: ...
    def list(self, include_superseded: bool = True) -> "list[Memory]": ...
