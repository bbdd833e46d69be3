"""In-memory search index of ONE profile: vectors, ranking columns and BM25.

Why not LanceDB's own vector search: a prefiltered flat scan there took ~0.5 s for
50k rows on this 2-core machine, while a numpy mat-vec over the profile's vectors takes
a few ms (see `tutor-app bench memory`). LanceDB stays the durable store; this index
is rebuilt from it when the table version moves and is patched in place by our own
writes, so the common path never re-reads the table.
"""
from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from tutor_app.memory.retrieval.lexical import Bm25
from tutor_app.memory.retrieval.slots import row_tags

if TYPE_CHECKING:
    import numpy as np


@dataclass
class IndexRow:
    id: str
    text: str
    category: str
    emotion_label: str
    created: float  # epoch seconds
    importance: float
    superseded: bool
    memory_type: str = "semantic"
    source: str = ""
    session_id: str = ""
    meta: str = ""
    emotion_score: float = 0.0


_BLAS_LIMITED = False


def _single_thread_blas() -> None:
    """A mat-vec is memory-bound: a second OpenBLAS thread does not help, and on a busy
    2-core CPU its spin-wait made 10k rows take 8 ms instead of 0.4 ms (measured here).
    OpenBLAS's thread count is process-wide; numpy is not used for heavy math elsewhere
    (torch has its own pool)."""
    global _BLAS_LIMITED
    if _BLAS_LIMITED:
        return
    _BLAS_LIMITED = True
    try:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=1, user_api="blas")
    except Exception:  # noqa: BLE001 - only a speed-up
        pass


class ProfileIndex:
    def __init__(self, dim: int) -> None:
        import numpy as np

        _single_thread_blas()

        self.dim = dim
        self._vec = np.zeros((0, dim), dtype=np.float32)
        self._n = 0
        self.rows: list[IndexRow] = []
        self.pos: dict[str, int] = {}
        self.has_vec: list[bool] = []
        self._created = np.zeros(0)
        self._importance = np.zeros(0, dtype=np.float32)
        self._tags = np.zeros(0, dtype=np.int32)
        self._current = np.zeros(0, dtype=bool)
        self._lex: Bm25 | None = None
        self.version: int | None = None
        # Readers (a turn's recall) and in-place patches (a background write) take this.
        self.lock = threading.RLock()

    def __len__(self) -> int:
        return self._n

    # -- building -----------------------------------------------------------------
    def add(self, rows: list[IndexRow], vectors: "np.ndarray | None") -> None:
        import numpy as np

        if not rows:
            return
        k = len(rows)
        need = self._n + k
        if need > len(self._vec):
            cap = max(need, 2 * len(self._vec), 64)
            grown = np.zeros((cap, self.dim), dtype=np.float32)
            grown[: self._n] = self._vec[: self._n]
            self._vec = grown
        present = [True] * k
        if vectors is not None:
            v = np.asarray(vectors, dtype=np.float32)
            bad = ~np.isfinite(v).all(axis=1)
            if bad.any():
                v = v.copy()
                v[bad] = 0.0
                present = [not b for b in cast(list[bool], bad.tolist())]
            self._vec[self._n: need] = v
        else:
            self._vec[self._n: need] = 0.0
            present = [False] * k
        for i, row in enumerate(rows):
            self.pos[row.id] = self._n + i
            self.rows.append(row)
            if self._lex is not None:
                self._lex.add(row.text)
        self.has_vec.extend(present)
        self._n = need
        self._created = np.concatenate([self._created, np.array([r.created for r in rows])])
        self._importance = np.concatenate([self._importance, np.array([r.importance for r in rows], dtype=np.float32)])
        self._tags = np.concatenate([self._tags, np.array([row_tags(r.text, r.category) for r in rows], dtype=np.int32)])
        self._current = np.concatenate([self._current, np.array([not r.superseded for r in rows], dtype=bool)])

    def remove(self, ids: set[str]) -> None:
        import numpy as np

        keep = [i for i, r in enumerate(self.rows) if r.id not in ids]
        if len(keep) == self._n:
            return
        idx = np.asarray(keep, dtype=np.int64)
        self._vec = np.ascontiguousarray(self._vec[: self._n][idx]) if len(idx) else np.zeros((0, self.dim), np.float32)
        self.rows = [self.rows[i] for i in keep]
        self.has_vec = [self.has_vec[i] for i in keep]
        self._created = self._created[idx]
        self._importance = self._importance[idx]
        self._tags = self._tags[idx]
        self._current = self._current[idx]
        self._n = len(keep)
        self.pos = {r.id: i for i, r in enumerate(self.rows)}
        self._lex = None  # rebuilt lazily on the next lexical query

    def mark_superseded(self, mem_id: str, value: bool = True) -> None:
        i = self.pos.get(mem_id)
        if i is not None:
            self.rows[i].superseded = value
            self._current[i] = not value

    # -- reading ------------------------------------------------------------------
    @property
    def vectors(self) -> "np.ndarray":
        return self._vec[: self._n]

    @property
    def created(self) -> "np.ndarray":
        return self._created

    @property
    def importance(self) -> "np.ndarray":
        return self._importance

    @property
    def tags(self) -> "np.ndarray":
        return self._tags

    @property
    def current(self) -> "np.ndarray":
        return self._current

    def rows_with_emotion(self, label: str) -> list[int]:
        return [i for i, r in enumerate(self.rows) if r.emotion_label == label]

    def dense(self, query: "np.ndarray") -> "np.ndarray":
        """Cosine of every row to the (normalised) query; rows without a vector get -1."""
        import numpy as np

        if self._n == 0:
            return np.zeros(0, dtype=np.float32)
        return self._vec[: self._n] @ np.asarray(query, dtype=np.float32)

    @property
    def lexical(self) -> Bm25:
        if self._lex is None:
            lex = Bm25()
            for r in self.rows:
                lex.add(r.text)
            self._lex = lex
        return self._lex

    def row(self, i: int) -> IndexRow:
        return self.rows[i]

    def stats(self) -> dict[str, Any]:
        return {"rows": self._n, "bytes": int(self._vec.nbytes)}
