"""Oversized input is refused first (issue #33): stdin and arguments are read with a
bound, so 20 MB piped to a command gets the one-line refusal without the models loading
or the input being read whole. Real processes; no timing is asserted (the numbers are
measured with /usr/bin/time, see the README)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.memory_fixtures import REPO

TWENTY_MB = b"a" * (20 * 1024 * 1024)


def cli(*args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "local", *args], capture_output=True,
                          input=stdin, env=dict(os.environ), timeout=300, cwd=REPO)


def _one_line(out: subprocess.CompletedProcess) -> str:
    err = out.stderr.decode()
    assert "Traceback" not in err, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    return lines[0]


def test_twenty_megabytes_on_stdin_to_chat_is_refused(data_dir):
    out = cli("chat", "--session", "big", stdin=b"Hello there.\n" + TWENTY_MB + b"\n")
    assert out.returncode == 1
    assert _one_line(out) == ("tutor-app: stdin line 2: message text is too long (more than 262144 bytes; "
                              "the limit is 262144); nothing was done")
    assert out.stdout == b""  # the first, fine line was not said either: sizes come first
    assert not (data_dir / "memory.lancedb").exists()


def test_twenty_megabytes_on_stdin_to_memory_search_is_refused(data_dir):
    out = cli("memory", "search", stdin=TWENTY_MB)
    assert out.returncode == 1
    assert _one_line(out) == ("tutor-app: stdin line 1: search query is too long (more than 8192 bytes; "
                              "the limit is 8192); nothing was done")


def test_oversized_arguments_are_refused_before_any_work(data_dir):
    big = "b" * 9000
    for args, what, limit in ((("memory", "search", big), "search query", 8192),
                              (("memory", "add", big), "memory text", 8192)):
        out = cli(*args)
        assert out.returncode == 1, args
        assert _one_line(out) == f"tutor-app: {what} is too long (9000 bytes; the limit is {limit})"
    out = cli("emotion", stdin=b"fine\n" + b"c" * 300_000)
    assert out.returncode == 1
    assert "stdin line 2: text is too long (more than 262144 bytes" in _one_line(out)


def test_a_line_at_the_limit_still_passes_the_bound(data_dir):
    query = "d" * 8192
    out = cli("memory", "search", stdin=query.encode() + b"\r\n")
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode().strip() == "0 hit(s)"


def test_memory_import_from_a_pipe_is_bounded(data_dir, monkeypatch):
    """`memory import /dev/stdin`: a pipe has no size to check first; the read itself is bounded."""
    from tutor_app.errors import TutorError
    from tutor_app.memory.storage import transfer

    out = cli("memory", "import", "/dev/stdin", stdin=b'{"text": "I live in Lyon."}\n')
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode().strip() == "imported 1 memories"
    monkeypatch.setattr(transfer, "MAX_IMPORT_BYTES", 16)
    read_from = os.pipe()
    os.write(read_from[1], b'{"text": "far more than sixteen bytes"}\n')
    os.close(read_from[1])
    try:
        with pytest.raises(TutorError, match="too large to import .*nothing imported"):
            transfer.import_file(None, f"/dev/fd/{read_from[0]}")  # type: ignore[arg-type]
    finally:
        os.close(read_from[0])
