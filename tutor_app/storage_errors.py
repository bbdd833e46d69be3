"""One line for a failure of the data folder's disk or database (issue #33), in the
learner's words: what happened, which folder, what to do. Never a source path: LanceDB's
errors carry the Rust file and line they came from (those go to the log only)."""
from __future__ import annotations

import errno
import re
from pathlib import Path

_FULL = (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC))
_FULL_TEXT = ("no space left on device", "os error 28", "disk quota exceeded", "os error 122")
# ", /root/.cargo/registry/src/.../structural.rs:258:9" and the like
_SOURCE_PATH = re.compile(r",?\s*(?:[A-Za-z]:)?[^\s,]*[/\\][^\s,]*\.rs:\d+(?::\d+)?")


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 10:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def without_source_paths(text: str) -> str:
    return _SOURCE_PATH.sub("", text).strip()


def full_disk(exc: BaseException) -> bool:
    """Did `exc` (or what caused it) fail for lack of space (or quota)?"""
    chain = _chain(exc)
    texts = " ".join(str(e) for e in chain).lower()
    return any(isinstance(e, OSError) and e.errno in _FULL for e in chain) or any(t in texts for t in _FULL_TEXT)


def storage_line(exc: BaseException, data_dir: Path, pending_deletion: bool = False) -> str | None:
    """The one line for `exc` when it is a storage failure, else None (not ours to word)."""
    texts = " ".join(str(e) for e in _chain(exc)).lower()
    later = " (a deletion in progress finishes by itself then)" if pending_deletion else ""
    if full_disk(exc):
        return (f"the disk is full: the data folder {data_dir} cannot be written; free some space on that disk "
                f"and run the command again{later}")
    if "lance error" in texts or "lanceerror" in texts:
        first = without_source_paths(str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__)
        return (f"the memory database in {data_dir / 'memory.lancedb'} cannot be read or written ({first[:200]}); "
                f"run `tutor-app doctor` (and `tutor-app doctor --repair` if it finds damage), make sure the disk "
                f"has space{later}, or restore the folder from a backup")
    return None
