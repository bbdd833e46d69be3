"""`tutor-app memory ...` end to end, through a subprocess with a temp --data-dir."""
from __future__ import annotations

import json

import pytest

from tests.memory_fixtures import files_containing, run_cli

pytestmark = pytest.mark.slow


def lines(proc):
    return [json.loads(x) for x in proc.stdout.decode().splitlines() if x.strip()]


def test_memory_commands(tmp_path, capsys, monkeypatch):
    """Every sub-command once through a real process; extra checks in-process (cli.main)."""
    from tutor_app.cli import main

    data = tmp_path / "data"
    monkeypatch.setenv("TUTOR_APP_DATA_DIR", str(data))

    def inproc(*args):
        capsys.readouterr()
        rc = main(list(args))
        return rc, capsys.readouterr().out
    jl = tmp_path / "in.jsonl"
    jl.write_text("\n".join(json.dumps(x) for x in [
        {"text": "I love lattes", "category": "preference", "meta": {"from": "diary", "n": [1, 2]}},
        {"text": "My name is Minji", "category": "name", "importance": 0.9},
        {"text": "Old chit-chat about the weather", "importance": 0.1, "created_at": "2020-01-01T00:00:00Z"},
        {"text": "My exam is on March 14th", "memory_type": "episodic", "session_id": "call-1"},
    ]) + "\n", encoding="utf-8")
    r = run_cli("memory", "import", str(jl), data_dir=data)
    assert r.returncode == 0, r.stderr
    assert b"imported 4 memories" in r.stdout

    r = run_cli("memory", "add", "PLUTO-7731 is my locker code", "--category", "fact", "--importance", "0.7",
                "--created-at", "2026-01-05T10:00:00Z", data_dir=data)
    assert r.returncode == 0, r.stderr
    added_id = r.stdout.decode().strip()

    r = run_cli("memory", "list", "--json", data_dir=data)
    assert r.returncode == 0
    listed = lines(r)
    assert len(listed) == 5 and {"id", "text", "category", "created_at", "meta"} <= set(listed[0])
    assert any(m["id"] == added_id and m["created_at"] == "2026-01-05T10:00:00Z" for m in listed)

    r = run_cli("memory", "search", "--json", "--k", "3", data_dir=data,
                stdin="what coffee do I like?\nwhat's my name?\nwhat car do I drive?\n")
    assert r.returncode == 0, r.stderr
    out = lines(r)
    assert [o["query"] for o in out] == ["what coffee do I like?", "what's my name?", "what car do I drive?"]
    hit = out[0]["hits"][0]
    assert set(hit) == {"id", "text", "score", "category", "created_at", "meta"}
    assert hit["text"] == "I love lattes" and hit["meta"] == {"from": "diary", "n": [1, 2]}
    assert out[1]["hits"][0]["text"] == "My name is Minji"
    assert out[2]["hits"] == []

    r = run_cli("memory", "profile", "--json", data_dir=data)
    prof = lines(r)
    assert len(prof) == 1 and prof[0]["name"] == "My name is Minji" and "I love lattes" in prof[0]["preferences"]

    assert inproc("--profile", "someone-else", "memory", "list", "--json") == (0, "")

    export = tmp_path / "out.json"
    assert inproc("memory", "export", str(export))[0] == 0
    assert len(json.loads(export.read_text())["memories"]) == 5
    r = run_cli("memory", "export", data_dir=data)
    assert len(r.stdout.decode().strip().splitlines()) == 1 and len(lines(r)[0]["memories"]) == 5

    r = run_cli("memory", "cleanup", "--days", "30", data_dir=data)
    assert r.returncode == 0 and b"deleted 1 memories" in r.stdout

    r = run_cli("memory", "delete", added_id, data_dir=data)
    assert r.returncode == 0, r.stderr
    assert files_containing(data, "PLUTO-7731") == []

    r = run_cli("memory", "clear", data_dir=data)
    assert r.returncode == 0 and b"deleted 3 memories" in r.stdout
    assert files_containing(data, "I love lattes") == [] and files_containing(data, "Minji") == []
    assert inproc("memory", "list", "--json") == (0, "")


def test_bad_inputs_are_one_clear_line(tmp_path, capsys, monkeypatch):
    """In-process through cli.main (same parser and handlers; spares a process start per
    case), plus one real subprocess for the exit code and stderr of a bad import."""
    from tutor_app.cli import main

    data = tmp_path / "data"
    monkeypatch.setenv("TUTOR_APP_DATA_DIR", str(data))

    def fails(*args, code=1, match=""):
        capsys.readouterr()
        rc = main(list(args))
        err = capsys.readouterr().err.strip()
        assert rc == code, (args, rc, err)
        assert "Traceback" not in err and err.count("\n") == 0 and match in err, err
        return err

    fails("memory", "add", "   ", match="empty")
    fails("memory", "add", "x" * 100_000, match="too long")
    # Invalid UTF-8 in a text argument costs the bad bytes only (replaced, and said once).
    warned = fails("memory", "add", "bad \udcff bytes", code=0, match="invalid UTF-8")
    assert "replaced with U+FFFD" in warned
    fails("memory", "add", "ok", "--importance", "7", match="between 0 and 1")
    fails("memory", "add", "ok", "--type", "weird", code=2)
    fails("memory", "add", "ok", "--created-at", "next tuesday", match="ISO 8601")
    fails("memory", "delete", "does-not-exist", match="no memory with id")
    fails("memory", "search", "x", "--k", "0", code=2)
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(b'{"text": "fine"}\n{"text": "\xff\xfe broken"}\n')
    fails("memory", "import", str(bad), match="line 2: not valid UTF-8")
    bad.write_bytes(b'{"text": "fine"}\n{"text": ""}\n')
    fails("memory", "import", str(bad), match="item 2: memory text is empty; nothing imported")
    fails("memory", "import", str(tmp_path / "missing.jsonl"), match="cannot read")
    bad.write_bytes(b'{"text": "fine"}\n{"text": "also fine"}\n{"text": oops}\n')
    r = run_cli("memory", "import", str(bad), data_dir=data)
    err = r.stderr.decode()
    assert r.returncode == 1 and "line 3: not valid JSON" in err and "nothing imported" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    capsys.readouterr()
    assert main(["memory", "list", "--json"]) == 0
    listed = [json.loads(line)["text"] for line in capsys.readouterr().out.splitlines()]
    assert listed == ["bad \ufffd bytes"]  # the one good add; nothing half-written by the others


def test_newer_data_dir_is_refused(tmp_path):
    from tests.integration.test_memory_faults import _make_newer

    data = tmp_path / "data"
    _make_newer(data / "memory.lancedb")
    r = run_cli("memory", "list", data_dir=data)
    assert r.returncode == 1
    assert b"newer Tutor" in r.stderr and b"Traceback" not in r.stderr
