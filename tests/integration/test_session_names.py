"""Session ids and profile names are bounded and made safe before they name a file
(issue #33): a 5,000-character `--session` gets one usage line, and an id that an older
version stored anyway (too long, or with a '/') never breaks the recovery at later starts."""
from __future__ import annotations

import os
import subprocess
import sys
from datetime import datetime, timezone

import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process
from tests.memory_fixtures import REPO, real_embedder

pytestmark = pytest.mark.slow

LONG = "s" * 5000


def cli(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "anthropic", *args], capture_output=True,
                          text=True, env=dict(os.environ), input=input_text, timeout=300, cwd=REPO)


# One case as a real process (its exit code and whole stderr); the others through the same
# parser and check in this process (tests/in_process.py), which spares a start each.
@pytest.mark.parametrize("in_process, args", [(False, ("chat", "--session", LONG, "--text", "Hi.")),
                                              (True, ("chat", "--session", "../../outside", "--text", "Hi.")),
                                              (True, ("call", "--session", "a\nb", "--input", "x.wav")),
                                              (True, ("--profile", "p" * 5000, "memory", "list"))])
def test_a_bad_session_or_profile_name_gets_one_usage_line(data_dir, in_process, args):
    out = run_in_process(*args) if in_process else cli(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tutor-app: --"), out.stderr
    assert "printable characters" in lines[0] and "characters given)" in lines[0]
    assert not (data_dir / "live").exists()


def test_a_stored_overlong_session_id_never_breaks_later_starts(fake_anthropic, data_dir):
    """Calls an older version stored under unsafe ids, one ended but not extracted, one a
    live call whose process died: the next start recovers both, no 'File name too long'."""
    from tutor_app.memory.storage.store import open_store
    from tutor_app.tutor.recovery import CallLease, lease_path

    live = data_dir / "live"
    store = open_store(data_dir / "memory.lancedb", real_embedder(), "default")
    started = datetime(2026, 1, 5, 10, 0, tzinfo=timezone.utc)
    store.record_call(LONG, started, ended_at=started)  # ended, extraction never ran
    store.record_call("x/" + LONG, started)  # a live call that died
    store.close()
    dead = CallLease(live, "x/" + LONG)
    dead._lock.release()  # what the OS does when the process dies: the file stays, unlocked
    assert lease_path(live, "x/" + LONG).parent == live and lease_path(live, "x/" + LONG).exists()

    fake_anthropic.push(Reply("Hello!"))
    out = cli("chat", "--session", "fresh", "--text", "Hello.")
    assert out.returncode == 0, out.stderr
    assert "recover-calls failed" not in out.stderr and "File name too long" not in out.stderr, out.stderr
    assert not lease_path(live, "x/" + LONG).exists()  # recovered: its lease has done its job
    assert list(live.glob("*.lease")) == []
