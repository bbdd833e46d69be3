"""Table layouts, limits and value checks for the memory database.

The schema version and the embedder name are written into each table's Arrow schema
metadata, so they travel with the table: a newer version is refused, a different
embedder triggers a re-embed (see store.py).
"""
from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

from tutor_app.errors import TutorError
from tutor_app.paths import MAX_PROFILE_CHARS

SCHEMA_VERSION = 1
META_VERSION = b"tutor.schema_version"
META_EMBEDDER = b"tutor.embedder"

MEMORIES = "memories"
MESSAGES = "messages"
CALLS = "calls"
TABLES = (MEMORIES, MESSAGES, CALLS)

MEMORY_TYPES = ("semantic", "episodic", "procedural")
SOURCES = ("gate", "trigger", "extraction", "manual", "import")

MAX_TEXT_BYTES = 8 * 1024  # a memory is a sentence or a short paragraph, not a document
MAX_MESSAGE_BYTES = 256 * 1024  # a transcript line is kept in full, even a 5,000-word turn
MAX_META_BYTES = 16 * 1024


class NewerSchemaError(TutorError):
    """The data dir was written by a newer Tutor."""


def utcnow() -> datetime:
    return datetime.now(timezone.utc)


def check_text(text: Any, what: str = "memory text", limit: int = MAX_TEXT_BYTES) -> str:
    """Verbatim text or a one-line TutorError; never strips inner content."""
    if not isinstance(text, str):
        raise TutorError(f"{what} must be a string")
    if not text.strip():
        raise TutorError(f"{what} is empty")
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise TutorError(f"{what} is too long ({size} bytes; the limit is {limit})")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise TutorError(f"{what} is not valid UTF-8") from None
    if "\x00" in text:
        raise TutorError(f"{what} contains a NUL character")
    return text


def check_profile(profile: Any) -> str:
    if not isinstance(profile, str) or not profile.strip() or len(profile) > MAX_PROFILE_CHARS:
        raise TutorError(f"profile name must be 1-{MAX_PROFILE_CHARS} characters")
    return profile


def check_importance(value: Any) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TutorError(f"importance must be a number between 0 and 1, not {value!r}") from None
    if not 0.0 <= x <= 1.0:
        raise TutorError(f"importance must be between 0 and 1, not {x}")
    return x


def check_memory_type(value: Any) -> str:
    if value not in MEMORY_TYPES:
        raise TutorError(f"memory type must be one of {', '.join(MEMORY_TYPES)}, not {value!r}")
    return str(value)  # one of MEMORY_TYPES: a str already


def check_category(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or len(value) > 64 or "\n" in value:
        raise TutorError("category must be a short single-line string")
    return value.strip().lower()


def parse_time(value: Any, what: str = "created_at") -> datetime:
    """ISO 8601 (a trailing Z is fine) or epoch seconds -> aware UTC datetime."""
    if isinstance(value, datetime):
        dt = value
    elif isinstance(value, (int, float)) and not isinstance(value, bool):
        dt = datetime.fromtimestamp(float(value), timezone.utc)
    elif isinstance(value, str):
        try:
            dt = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise TutorError(f"{what} is not an ISO 8601 date/time: {value[:40]!r}") from None
    else:
        raise TutorError(f"{what} must be an ISO 8601 string")
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)  # naive times are taken as UTC
    return dt.astimezone(timezone.utc)


def iso(dt: datetime | None) -> str | None:
    if dt is None:
        return None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=timezone.utc)
    return dt.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")


def dump_meta(meta: Any) -> str:
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        raise TutorError("meta must be a JSON object")
    try:
        text = json.dumps(meta, ensure_ascii=False, sort_keys=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise TutorError(f"meta is not JSON-serialisable: {exc}") from None
    if len(text.encode("utf-8")) > MAX_META_BYTES:
        raise TutorError(f"meta is too large (limit {MAX_META_BYTES} bytes)")
    return text


def load_meta(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def sql_str(value: str) -> str:
    """A SQL string literal for LanceDB filters (quotes doubled: no injection)."""
    return "'" + value.replace("'", "''") + "'"


def arrow_schema(table: str, dim: int, embedder: str) -> Any:  # a pyarrow.Schema (pyarrow is untyped)
    import pyarrow as pa

    ts = pa.timestamp("us", tz="UTC")
    vec = pa.field("vector", pa.list_(pa.float32(), dim), nullable=True)
    if table == MEMORIES:
        fields = [
            pa.field("id", pa.string(), nullable=False), pa.field("profile", pa.string(), nullable=False),
            pa.field("text", pa.string(), nullable=False), pa.field("memory_type", pa.string()),
            pa.field("category", pa.string()), pa.field("emotion_label", pa.string()),
            pa.field("emotion_score", pa.float32()), pa.field("importance", pa.float32()),
            pa.field("source", pa.string()), pa.field("session_id", pa.string()),
            pa.field("meta", pa.string()), pa.field("created_at", ts), pa.field("updated_at", ts),
            pa.field("accessed_at", ts), pa.field("superseded_by", pa.string()), vec,
        ]
    elif table == MESSAGES:
        fields = [
            pa.field("id", pa.string(), nullable=False), pa.field("profile", pa.string(), nullable=False),
            pa.field("session_id", pa.string()), pa.field("role", pa.string()),
            pa.field("text", pa.string()), pa.field("emotion", pa.string()),
            pa.field("created_at", ts), vec,
        ]
    elif table == CALLS:
        fields = [
            pa.field("id", pa.string(), nullable=False), pa.field("profile", pa.string(), nullable=False),
            pa.field("session_id", pa.string()), pa.field("started_at", ts), pa.field("ended_at", ts),
            pa.field("extracted", pa.bool_()), pa.field("report", pa.string()),
        ]
    else:  # pragma: no cover - programming error
        raise ValueError(table)
    meta = {META_VERSION: str(SCHEMA_VERSION).encode(), META_EMBEDDER: embedder.encode()}
    return pa.schema(fields, metadata=meta)
