"""Find the JSON object in a model's reply: pure, no model, no I/O.

Models wrap JSON in code fences, put prose around it, use Python literals or leave a
trailing comma. `extract_json_object` tries, in order: the whole text, each fenced
block, then every `{` in the text (the first decodable object wins), each with a
strict and then a lenient reading. It returns the object as parsed; checking the
fields' types is the caller's job.
"""
from __future__ import annotations

import ast
import json
import re
from typing import Any

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[ \t]*\n?(.*?)```", re.DOTALL)
_TRAILING_COMMA = re.compile(r",(\s*[}\]])")
_SMART_QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
_MAX_STARTS = 200  # enough for any sane reply; bounds the work on hostile text


class JSONExtractError(ValueError):
    """No JSON object could be read from the text."""


def extract_json_object(text: str) -> dict[str, Any]:
    if not isinstance(text, str) or not text.strip():
        raise JSONExtractError("empty reply")
    for candidate in _candidates(text):
        found = _object_in(candidate)
        if found is not None:
            return found
    raise JSONExtractError(f"no JSON object in the reply: {_preview(text)}")


def _candidates(text: str) -> list[str]:
    stripped = text.strip()
    out = [stripped]
    out += [m.group(2).strip() for m in _FENCE.finditer(text)]
    if stripped.startswith("```"):  # an unclosed fence (reply cut by max_tokens)
        out.append(stripped.split("\n", 1)[1] if "\n" in stripped else stripped[3:])
    return out


def _object_in(text: str) -> dict[str, Any] | None:
    whole = _loads(text)
    if isinstance(whole, dict):
        return whole
    decoder = json.JSONDecoder()
    starts = [i for i, ch in enumerate(text) if ch == "{"][:_MAX_STARTS]
    for start in starts:
        try:
            value, _ = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            value = _lenient(_balanced(text, start))
        if isinstance(value, dict):
            return value
    return None


def _loads(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return _lenient(text)


def _lenient(text: str | None) -> Any:
    """Trailing commas, smart quotes, Python literals ({'a': True}); None if hopeless."""
    if not text or not text.lstrip().startswith("{"):
        return None
    fixed = _TRAILING_COMMA.sub(r"\1", text.translate(_SMART_QUOTES))
    try:
        return json.loads(fixed)
    except json.JSONDecodeError:
        pass
    try:
        value = ast.literal_eval(fixed)  # safe: literals only, never code
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def _balanced(text: str, start: int) -> str | None:
    """The `{...}` span starting at `start`, honouring quoted strings; None if unclosed."""
    depth = 0
    quote = ""
    escaped = False
    for i in range(start, len(text)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def _preview(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."
