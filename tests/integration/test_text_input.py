"""Invalid UTF-8 in a line or an argument costs that byte, never the command: the bad
bytes are replaced (and reported on stderr) and every other line is still answered. The
commands under test are real processes; a test's own setup and read-back run in this
process (tests/in_process.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process

pytestmark = pytest.mark.slow

BAD = b"\xff"


def cli(*args: bytes | str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    argv = [sys.executable.encode(), b"-m", b"tutor_app", b"--llm", b"anthropic",
            *(a if isinstance(a, bytes) else a.encode() for a in args)]
    return subprocess.run(argv, input=stdin, capture_output=True, env=dict(os.environ), timeout=300)


def test_a_bad_line_on_stdin_is_kept_and_the_good_lines_answered(data_dir):
    out = cli("emotion", "--json", stdin=b"I am happy\n" + BAD + b" so sad\n")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.decode().splitlines()]
    assert [line["text"] for line in lines] == ["I am happy", "\ufffd so sad"]
    assert b"line 2: invalid UTF-8" in out.stderr and b"Traceback" not in out.stderr


def test_a_bad_byte_in_a_chat_turn_still_stores_the_turn(fake_anthropic):
    fake_anthropic.push(Reply("Tea is lovely."))
    out = cli("chat", "--session", "u1", "--json", "--text", b"I like tea" + BAD)
    assert out.returncode == 0, out.stderr
    turn = json.loads(out.stdout)
    assert turn["user_text"] == "I like tea\ufffd" and turn["reply"] == "Tea is lovely."
    assert b"invalid UTF-8" in out.stderr
    export = run_in_process("memory", "export")
    texts = [m["text"] for m in json.loads(export.stdout)["messages"]]
    assert "I like tea\ufffd" in texts


def test_memory_search_from_stdin_with_a_bad_line(data_dir):
    assert run_in_process("memory", "add", "I have a dog named Kongi.").returncode == 0
    out = cli("memory", "search", "--json", stdin=b"my dog\n" + BAD + b"\n")
    assert out.returncode == 0, out.stderr
    assert b"Kongi" in out.stdout and b"line 2: invalid UTF-8" in out.stderr
