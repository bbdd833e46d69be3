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


def stdin_lines() -> list[str]:
    """Non-empty input lines when a command reads stdin (no positional values given)."""
    if sys.stdin is None or sys.stdin.isatty():
        return []
    return [line.rstrip("\n") for line in sys.stdin if line.strip()]


def module_available(module_name: str) -> bool:
    """A sub-command module that is part of this build (a frozen build may leave some out)."""
    try:
        return importlib.util.find_spec(module_name) is not None
    except ImportError:
        return False
