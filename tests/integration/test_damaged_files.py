"""Small files validated by their schema (issue #33): a pending-deletion journal or a
settings file with values of the wrong type is treated like a torn one - named once in
one line with what to do, set aside (renamed, never overwritten), recovered - and the
rest of the app works in the same run. Real processes on a real data dir; the journal
tests' first memory is added, and the last list read, in this process (tests/in_process.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib

import pytest

from tests.in_process import run_in_process
from tests.memory_fixtures import REPO

pytestmark = pytest.mark.slow


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "local", *args], capture_output=True,
                          text=True, env=dict(os.environ), timeout=300, cwd=REPO)


def _ok(*args: str, run=cli) -> subprocess.CompletedProcess:
    out = run(*args)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and "unexpected error" not in out.stderr, out.stderr
    return out


def _warnings(out: subprocess.CompletedProcess) -> list[str]:
    return [line for line in out.stderr.splitlines() if line.strip()]


@pytest.mark.parametrize("journal", [
    {"jobs": 5},
    [1, 2],
    {"jobs": [{"profile": "default", "kind": "memory", "memory_ids": "abc", "message_ids": [], "id": "j1"}]},
    {"jobs": [{"profile": 7, "kind": "clear", "memory_ids": [], "message_ids": [], "id": "j2"}]},
])
def test_an_ill_typed_deletion_journal_is_set_aside_and_every_command_goes_on(data_dir, journal):
    first = _ok("memory", "add", "I work as a nurse in Busan.", run=_in_process)  # before the damage
    mem_id = first.stdout.strip()
    db = data_dir / "memory.lancedb"
    (db / "pending-purges.json").write_text(json.dumps(journal), encoding="utf-8")

    listed = _ok("memory", "list")
    assert mem_id in listed.stdout  # nothing was lost: the stand-in job only erases hidden rows
    lines = _warnings(listed)
    assert len(lines) == 1, listed.stderr
    assert "pending-deletion journal" in lines[0] and "set aside as pending-purges.json.damaged-" in lines[0]
    assert "delete it again" in lines[0]  # what to do
    aside = list(db.glob("pending-purges.json.damaged-*"))
    assert len(aside) == 1 and json.loads(aside[0].read_text(encoding="utf-8")) == journal  # kept as it was
    assert not (db / "pending-purges.json").exists() and not (db / "pending-purges.json.tmp").exists()

    again = _ok("memory", "delete", mem_id)  # the rest of the app works, and says nothing more
    assert _warnings(again) == []
    assert mem_id not in _ok("memory", "list", run=_in_process).stdout


def _in_process(*args: str) -> subprocess.CompletedProcess:
    return run_in_process(*args, llm="local")


def test_a_damaged_journal_is_set_aside_before_a_deletion_writes_its_own(tmp_path):
    """Damaged while the store is open (the store replays the journal only when it opens):
    the deletion journals its job on top of a damaged file and must not overwrite it."""
    from tests.memory_fixtures import real_embedder
    from tutor_app.memory.storage.store import open_store

    db = tmp_path / "memory.lancedb"
    store = open_store(db, real_embedder(), "default")
    try:
        mem = store.add("I like hiking on Sundays.")
        (db / "pending-purges.json").write_text('{"jobs": {"a": 1}}', encoding="utf-8")
        store.delete(mem.id)
        assert store.list() == []
    finally:
        store.close()
    assert [p.read_text(encoding="utf-8") for p in db.glob("pending-purges.json.damaged-*")] == ['{"jobs": {"a": 1}}']
    assert not (db / "pending-purges.json").exists()


@pytest.mark.parametrize("content, bad", [
    ('profile = 7\n[tutor]\nlevel = "beginner"\n', "profile"),
    ('llm = 5\n[tutor]\nlevel = "beginner"\n', "llm"),
    ('[tutor]\nlevel = "beginner"\n[speech]\nsilence_ms = "slow"\n', "speech.silence_ms"),
    ('profile = "' + "p" * 300 + '"\n[tutor]\nlevel = "beginner"\n', "profile"),
])
def test_wrong_types_in_the_settings_file_are_named_once_and_the_rest_is_kept(data_dir, content, bad):
    settings = data_dir / "config" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_text(content, encoding="utf-8")

    out = _ok("memory", "list")
    lines = _warnings(out)
    assert len(lines) == 1, out.stderr
    assert f"wrong types: {bad})" in lines[0] and "set aside as settings.toml.damaged-" in lines[0]
    assert "the other settings were kept" in lines[0] and "Settings window" in lines[0]
    assert "no memories for profile 'default'" in out.stdout
    aside = list(settings.parent.glob("settings.toml.damaged-*"))
    assert len(aside) == 1 and aside[0].read_text(encoding="utf-8") == content
    assert tomllib.loads(settings.read_text(encoding="utf-8"))["tutor"] == {"level": "beginner"}  # kept

    assert _warnings(_ok("memory", "list")) == []  # named once: the next start finds a sound file


def test_an_unreadable_settings_file_is_set_aside_with_what_to_do(data_dir):
    settings = data_dir / "config" / "settings.toml"
    settings.parent.mkdir(parents=True)
    settings.write_bytes(b"[tutor\nlevel = \xff")
    out = _ok("memory", "list")
    lines = _warnings(out)
    assert len(lines) == 1 and "cannot be read" in lines[0] and "all settings are back to their defaults" in lines[0]
    assert "Settings window" in lines[0]
    assert not settings.exists() and len(list(settings.parent.glob("settings.toml.damaged-*"))) == 1
    assert _warnings(_ok("memory", "list")) == []
