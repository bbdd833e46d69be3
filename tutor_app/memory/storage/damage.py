"""A table of the memory database that cannot be read (issue #33): how it is recognised,
the one line that names it, and the cheap check made when the database opens.

A damaged table is never read from or written to again in that run: reads of the call
transcripts or call records give nothing (a call goes on without them), a write is refused
with the same line, and `tutor-app doctor --repair` (storage/repair.py) recovers what can
be read. LanceDB's own error names the Rust source line it came from: the line keeps its
first words only, without the source path (storage_errors.without_source_paths).
"""
from __future__ import annotations

from pathlib import Path

from tutor_app.errors import TutorError
from tutor_app.memory.storage import schema as S
from tutor_app.storage_errors import full_disk, without_source_paths

# What each table holds, in the learner's words.
WHAT = {S.MEMORIES: "memories", S.MESSAGES: "call transcripts", S.CALLS: "call records"}
FILE_END = b"LANC"  # the last bytes of every Lance data file and manifest: a cut-off file lacks them
# Words of LanceDB's (and Arrow's) errors about a file it cannot decode; a read that fails
# otherwise (a bad filter of ours) is a bug, not damage, and keeps its own error.
_DAMAGE_WORDS = ("corrupt", "protobuf", "invalid range", "not aligned",
                 "fill whole buffer", "invalid utf-8", "out of range", "unexpected end", "file size is too small",
                 "panicked", "decode", "metadata region", "column metadata")
_NOT_DAMAGE = ("not found", "no such file", "error parsing statement", "schema error",  # gone, or our filter
               "no field named", "permission denied", "read-only file system", "commit conflict")


class DamagedTableError(TutorError):
    """A read or write of a table that cannot be read; the message is `damage_line`."""

    def __init__(self, line: str, table: str) -> None:
        super().__init__(line)
        self.table = table


def is_damage(exc: BaseException, reading: bool = True) -> bool:
    """Is `exc` LanceDB failing to read a file of the table (not a full disk, not a file
    another process's cleanup just removed, not a permission)? A failed write counts only
    when it says it could not decode what it read."""
    if isinstance(exc, DamagedTableError):
        return True
    if full_disk(exc) or isinstance(exc, FileNotFoundError):
        return False
    text = f"{type(exc).__name__}: {exc}".lower()
    if any(words in text for words in _NOT_DAMAGE):
        return False
    # LanceDB's own errors: "lance error: ..." (RuntimeError) and "Invalid input, ..." (ValueError)
    ours = reading and (str(exc).startswith("Invalid input") or "lance" in text)
    return type(exc).__name__ == "PanicException" or ours or any(word in text for word in _DAMAGE_WORDS)


def reason(exc: BaseException) -> str:
    """LanceDB's error, short: its first line without the source path or the wrappers."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = without_source_paths(text)
    for prefix in ("lance error: ", "LanceError(IO): ", "Generic LocalFileSystem error: ", "Generic memory error: "):
        text = text.replace(prefix, "")
    return text.strip()[:160] or type(exc).__name__


def damage_line(db_dir: Path, table: str, why: str) -> str:
    """The one line for a damaged table, for a read and a refused write alike."""
    return (f"the {WHAT.get(table, table)} in {Path(db_dir) / (table + '.lance')} cannot be read ({why}): "
            f"nothing is read from or written to them until `tutor-app doctor --repair` recovers what can be "
            f"read (or restore the folder from a backup)")


def files_cut_off(table_dir: Path) -> list[Path]:
    """Data files and the newest manifest of a table that do not end as a Lance file does
    (a truncated or partly written file). Reads 4 bytes per file: cheap enough for every
    start. A file listed here may belong to no live version (a write killed half-way):
    the caller confirms with a real read."""
    out = []
    data = table_dir / "data"
    candidates = [*(sorted(data.glob("*.lance")) if data.is_dir() else []), *manifests_newest_first(table_dir)[:1]]
    for path in candidates:
        try:
            with open(path, "rb") as fh:
                fh.seek(0, 2)
                if fh.tell() < len(FILE_END):
                    out.append(path)
                    continue
                fh.seek(-len(FILE_END), 2)
                if fh.read(len(FILE_END)) != FILE_END:
                    out.append(path)
        except OSError:
            out.append(path)
    return out


def version_of(manifest: Path) -> int:
    """The version a manifest file holds. LanceDB names them either by the version or, in
    its newer layout, by u64::MAX minus the version (so that the newest sorts first)."""
    try:
        number = int(manifest.stem)
    except ValueError:
        return -1
    return (2**64 - 1) - number if number > 2**63 else number


def manifests_newest_first(table_dir: Path) -> list[Path]:
    versions = table_dir / "_versions"
    if not versions.is_dir():
        return []
    return sorted(versions.glob("*.manifest"), key=version_of, reverse=True)
