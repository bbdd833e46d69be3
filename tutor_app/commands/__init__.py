"""One module per sub-command: `register(subparsers, common)` adds its parser.

Modules here import only the standard library at load time so `--help` stays instant.
"""
from __future__ import annotations

import importlib.util
import json
import sys
from typing import Any


def print_json(obj: Any) -> None:
    """One JSON object per line (the --json contract)."""
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def lenient_text(text: str) -> tuple[str, bool]:
    """`text` with invalid UTF-8 (which Python carries as lone surrogates from argv, or a
    C-locale stdin) replaced by U+FFFD; True when anything was replaced. The tokenizers
    downstream reject surrogates, and one bad byte must not cost the whole command."""
    try:
        text.encode("utf-8")
        return text, False
    except UnicodeEncodeError:
        raw = text.encode("utf-8", "surrogateescape")
        return raw.decode("utf-8", "replace"), True


def text_arg(value: str) -> str:
    """argparse `type=` for free text (never for paths, whose bytes must stay as they are):
    invalid UTF-8 is replaced and reported, so the rest of the command still runs."""
    fixed, replaced = lenient_text(value)
    if replaced:
        print("tutor-app: a text argument held invalid UTF-8; those bytes were replaced with U+FFFD",
              file=sys.stderr)
    return fixed


def too_long(what: str, limit: int, size: int | None = None) -> str:
    """The one wording for oversized input, the same as the storage checks use."""
    told = f"{size} bytes" if size is not None else f"more than {limit} bytes"
    return f"{what} is too long ({told}; the limit is {limit})"


def check_size(text: str, limit: int, what: str) -> str:
    """`text` when it fits in `limit` UTF-8 bytes; else the one-line TutorError, before any work."""
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        from tutor_app.errors import TutorError

        raise TutorError(too_long(what, limit, size))
    return text


def _bounded_raw_lines(source: Any, limit: int | None, what: str):
    """Raw lines of a binary stream, each read with a bound: a line longer than `limit`
    bytes is refused as soon as the limit is passed, never read whole into memory."""
    number = 0
    while True:
        raw = source.readline() if limit is None else source.readline(limit + 3)
        if not raw:
            return
        number += 1
        body = raw.rstrip(b"\r\n")
        if limit is not None and len(body) > limit:
            from tutor_app.errors import TutorError

            raise TutorError(f"stdin line {number}: {too_long(what, limit)}; nothing was done")
        yield raw


def stdin_lines(limit: int | None = None, what: str = "a line") -> list[str]:
    """Non-empty input lines when a command reads stdin (no positional values given).
    Read as bytes and decoded line by line: a line with invalid UTF-8 is kept with the
    bad bytes replaced (and reported), never dropped with the lines around it. With
    `limit`, every line is read with that bound (bytes) and an overlong one is refused
    before any line is used."""
    if sys.stdin is None or sys.stdin.isatty():
        return []
    source = getattr(sys.stdin, "buffer", None)
    if source is not None:
        raw_lines = list(_bounded_raw_lines(source, limit, what))
    else:
        raw_lines = [line.encode("utf-8", "surrogateescape") for line in sys.stdin]
    lines = []
    for number, raw in enumerate(raw_lines, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = raw.decode("utf-8", "replace")
            print(f"tutor-app: line {number}: invalid UTF-8 bytes replaced with U+FFFD", file=sys.stderr)
        line, replaced = lenient_text(line.rstrip("\r\n"))  # a str stdin may carry surrogates
        if replaced:
            print(f"tutor-app: line {number}: invalid UTF-8 bytes replaced with U+FFFD", file=sys.stderr)
        if line.strip():
            if limit is not None:
                check_size(line, limit, f"stdin line {number}: {what}")
            lines.append(line)
    return lines


def module_available(module_name: str) -> bool:
    """A sub-command module that is part of this build (a frozen build may leave some out)."""
    try:
        return importlib.util.find_spec(module_name) is not None
    except ImportError:
        return False
