"""A damaged memory database (issue #33), on copies of a small real data dir: each damage
ends in one line naming the table and what to do, or goes on without the damaged part
(named once); `doctor` finds it and `doctor --repair` recovers what can be read, saying
how many rows were kept and lost. The commands run in this process (`cli.main`), the
ones whose whole process matters (`doctor --repair`, `chat`) as real processes."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tests.memory_fixtures import REPO, real_embedder
from tutor_app.cli import main

pytestmark = pytest.mark.slow

LEARNER = ["Hello, my name is Minji.", "I want to get better at speaking English for my job."]
TUTOR = ["Nice to meet you, Minji!", "That is a great goal. What is your job?"]


def _quiet_main(*args: str) -> int:
    import contextlib
    import io

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(list(args))


@pytest.fixture(scope="module")
def base(tmp_path_factory) -> dict:
    """Two memories added with the CLI, a call as `chat` and `end-call` store it (its four
    transcript lines, its record, the two memories its end extracted), then one more memory
    added with the CLI: the memories table's newest version holds that last one."""
    from datetime import datetime, timedelta, timezone

    from tutor_app.memory.storage.store import open_store

    data = tmp_path_factory.mktemp("base") / "data"
    for text in ("I work as a nurse in Busan.", "I like hiking on Sundays."):
        assert _quiet_main("--data-dir", str(data), "memory", "add", text) == 0
    store = open_store(data / "memory.lancedb", real_embedder(), "default")
    started = datetime.now(timezone.utc) - timedelta(minutes=5)
    call = store.record_call("s1", started)
    for said, reply in zip(LEARNER, TUTOR):
        store.add_message("s1", "user", said)
        store.add_message("s1", "assistant", reply)
    store.add("Name: Minji", category="name", source="extraction", session_id="s1")
    store.add("Learning goal: get better at speaking English for my job", category="goal", source="extraction",
              session_id="s1")
    store.update_call(call.id, ended_at=started + timedelta(minutes=4), report={"turns": 2}, extracted=True)
    store.close()
    assert _quiet_main("--data-dir", str(data), "memory", "add", "I also play the violin.") == 0
    from tutor_app.memory.storage.store import open_store as reopen

    store = reopen(data / "memory.lancedb", real_embedder(), "default")
    memories = {m.id: m.text for m in store.list()}
    store.close()
    return {"dir": data, "memories": memories}


@pytest.fixture
def copy(base, tmp_path, monkeypatch) -> Path:
    data = tmp_path / "data"
    shutil.copytree(base["dir"], data)
    monkeypatch.setenv("TUTOR_APP_DATA_DIR", str(data))
    monkeypatch.delenv("TUTOR_APP_PROFILE", raising=False)
    return data


def run(capsys, *args: str) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    rc = main(["--llm", "local", *args])
    out = capsys.readouterr()
    lines = [line for line in out.err.splitlines() if line.strip()]
    assert "Traceback" not in out.err and ".rs:" not in out.err and "unexpected error" not in out.err, out.err
    return rc, out.out, lines


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "local", *args], capture_output=True,
                          text=True, env=dict(os.environ), timeout=300, cwd=REPO)


def _table(data: Path, name: str) -> Path:
    return data / "memory.lancedb" / f"{name}.lance"


def _truncate_every_data_file(data: Path, name: str) -> None:
    for f in (_table(data, name) / "data").glob("*.lance"):
        os.truncate(f, 100)


def _check(data: Path) -> dict:
    from tutor_app.memory.storage.check import check_database

    return {c.name: c for c in check_database(data / "memory.lancedb", 384)}


def _repair(data: Path) -> dict:
    from tutor_app.memory.storage.repair import repair_database

    db = data / "memory.lancedb"
    return {r.name: r for r in repair_database(db, real_embedder(), list(_check(data).values()))}


def test_a_garbled_newest_manifest_is_one_line_and_repair_restores_the_version_before(base, copy, capsys):
    from tutor_app.memory.storage.damage import manifests_newest_first

    newest = manifests_newest_first(_table(copy, "memories"))[0]
    garbled = random.Random(33).randbytes(100)
    newest.write_bytes(garbled)

    rc, _, err = run(capsys, "memory", "list")
    assert rc == 1 and len(err) == 1, err
    assert f"the memories in {_table(copy, 'memories')} cannot be read" in err[0]
    assert "`tutor-app doctor --repair`" in err[0]
    rc, _, err = run(capsys, "memory", "add", "I am learning to cook.")
    assert rc == 1 and err[0].startswith("tutor-app: the memories in"), err  # refused, same line

    found = _check(copy)["memories"]
    assert not found.opened and found.older_versions >= 5 and "cannot be opened" in found.describe()

    out = cli("doctor", "--repair")
    assert out.returncode == 0, out.stdout + out.stderr
    repaired = [line for line in out.stdout.splitlines() if line.startswith("[OK] repair")]
    assert len(repaired) == 1 and "memories: back to version" in repaired[0]
    assert "4 rows kept, 0 lost" in repaired[0] and "the last 1 change could not be read" in repaired[0]
    assert "[OK] index      the search index of profile 'default' was rebuilt: 4 memories" in out.stdout

    rc, listed, err = run(capsys, "memory", "list", "--json")
    assert rc == 0 and err == []
    kept = {json.loads(line)["id"]: json.loads(line)["text"] for line in listed.splitlines()}
    before = dict(base["memories"])
    lost = [i for i, t in before.items() if t == "I also play the violin."]  # the newest version's row
    assert kept == {i: t for i, t in before.items() if i not in lost}  # every other row intact
    aside = list(copy.glob("memory.lancedb.damaged-*/memories.lance/_versions/" + newest.name))
    assert [p.read_bytes() for p in aside] == [garbled]  # set aside, not deleted


def test_cut_off_memories_refuse_writes_in_one_line_and_the_rest_is_exported(copy, capsys):
    _truncate_every_data_file(copy, "memories")
    files = sorted((_table(copy, "memories") / "data").iterdir())

    rc, _, err = run(capsys, "memory", "add", "I am learning to cook.")
    assert rc == 1 and len(err) == 1, err  # known at start: every data file lacks its end
    assert "memories.lance cannot be read" in err[0] and "is cut off" in err[0] and "doctor --repair" in err[0]
    assert sorted((_table(copy, "memories") / "data").iterdir()) == files  # nothing written into it

    target = copy.parent / "export.json"
    rc, _, err = run(capsys, "memory", "export", str(target))
    assert rc == 0 and [line for line in err if "WARNING" in line] == [err[0]], err  # named once
    assert "WARNING: the memories in" in err[0]
    exported = json.loads(target.read_text(encoding="utf-8"))
    assert exported["memories"] == [] and len(exported["messages"]) == 4 and len(exported["calls"]) == 1

    rc, out, err = run(capsys, "chat", "--session", "s2", "--text", "I started a new job last week.")
    assert rc == 0 and out.startswith("you:   I started a new job last week.\ntutor: ")  # the call goes on
    assert len(err) == 1 and "WARNING: the memories in" in err[0], err  # without its memories, named once

    found = _check(copy)["memories"]
    assert found.unreadable == 5 and len(found.cut_off) == len(files)
    done = _repair(copy)["memories"]
    assert (done.kept, done.lost) == (0, 5)
    assert _check(copy)["memories"].cut_off == []  # the cut-off files are only in the copy set aside now
    assert len(list(copy.glob("memory.lancedb.damaged-*/memories.lance/data/*.lance"))) == len(files)
    rc, _, err = run(capsys, "memory", "add", "I am learning to cook.")
    assert rc == 0 and err == []


def _vector(data: Path, text: str) -> np.ndarray:
    import lancedb

    table = lancedb.connect(str(data / "memory.lancedb")).open_table("memories")
    rows = table.search().where(f"text = '{text}'").select(["vector"]).limit(None).to_arrow().to_pylist()
    return np.asarray(rows[0]["vector"], dtype=np.float32)


def _vector_offset(data: Path, text: str) -> tuple[Path, int]:
    """The data file and byte offset of the vector of the memory with this text."""
    needle = _vector(data, text).tobytes()
    for f in (_table(data, "memories") / "data").glob("*.lance"):
        at = f.read_bytes().find(needle)
        if at >= 0:
            return f, at
    raise AssertionError("vector not found in any data file")


def test_random_bytes_inside_a_vector_are_found_and_the_vector_computed_again(base, copy, capsys):
    text = "I work as a nurse in Busan."
    path, at = _vector_offset(copy, text)
    with open(path, "r+b") as fh:
        fh.seek(at + 400)
        fh.write(random.Random(200).randbytes(200))  # inside the vector: the file still reads

    found = _check(copy)["memories"]
    nurse = next(i for i, t in base["memories"].items() if t == text)
    assert found.opened and found.unreadable == 0 and found.bad_vectors == [nurse]
    assert "1 row with a damaged vector" in found.describe()

    rc, out, err = run(capsys, "memory", "search", "--json", "hiking on Sundays")
    assert rc == 0 and len(err) == 1 and "1 memories have a damaged vector" in err[0], err
    scores = [h["score"] for h in json.loads(out)["hits"]]
    assert scores and all(abs(s) <= 1.5 for s in scores)  # never the garbage vector's 1e30

    done = _repair(copy)["memories"]
    assert (done.kept, done.lost, done.recomputed) == (5, 0, 1)
    assert all(c.ok for c in _check(copy).values())
    assert float(np.dot(_vector(copy, text), real_embedder().embed_one(text))) > 0.999  # its text's, again


def test_random_bytes_in_a_file_s_footer_are_found_at_read_time_and_repaired(base, copy, capsys):
    oldest = min((_table(copy, "memories") / "data").glob("*.lance"), key=lambda f: f.stat().st_mtime_ns)
    size = oldest.stat().st_size
    with open(oldest, "r+b") as fh:
        fh.seek(size - 300)
        fh.write(random.Random(201).randbytes(200))  # the file's metadata; its last bytes stay

    rc, _, err = run(capsys, "memory", "list")
    assert rc == 1 and len(err) == 1 and "the memories in" in err[0] and "doctor --repair" in err[0], err

    rc, out, _ = run(capsys, "doctor")
    assert rc == 1 and f"[!!] database   memories in {_table(copy, 'memories')}: 1 of 5 rows cannot be read (" in out
    assert "      -> run `tutor-app doctor --repair`: it keeps every row that can be read" in out
    found = _check(copy)["memories"]
    assert found.unreadable == 1 and not found.cut_off
    done = _repair(copy)["memories"]
    assert (done.kept, done.lost) == (4, 1) and "rebuilt" in done.how
    rc, listed, err = run(capsys, "memory", "list", "--json")
    kept = {json.loads(line)["text"] for line in listed.splitlines()}
    assert rc == 0 and err == [] and kept == set(base["memories"].values()) - {"I work as a nurse in Busan."}


def test_damaged_transcripts_and_call_records_never_stop_a_call_or_an_export(base, copy, capsys):
    from tutor_app.practice.store import PracticeStore

    _truncate_every_data_file(copy, "messages")
    _truncate_every_data_file(copy, "calls")
    practice = PracticeStore(copy / "practice", "default").path
    practice.parent.mkdir(exist_ok=True)
    practice.write_text("[1, 2]", encoding="utf-8")

    out = cli("chat", "--session", "s2", "--text", "I started a new job last week.")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("you:   I started a new job last week.\ntutor: ")
    err = [line for line in out.stderr.splitlines() if line.strip()]
    assert "Traceback" not in out.stderr and "recover-calls failed" not in out.stderr, out.stderr
    named = {what: [line for line in err if what in line] for what in
             ("the call transcripts in", "the call records in", "the practice file")}
    assert all(len(lines) == 1 for lines in named.values()), err  # each named once
    assert len(err) == 3, err

    rc, _, err = run(capsys, "memory", "list")
    assert rc == 0 and err == []
    target = copy.parent / "export.json"
    rc, _, err = run(capsys, "memory", "export", str(target))
    assert rc == 0 and len([line for line in err if "WARNING" in line]) == 2, err
    exported = json.loads(target.read_text(encoding="utf-8"))
    assert {m["text"] for m in exported["memories"]} >= set(base["memories"].values())
    assert exported["messages"] == [] and exported["calls"] == []

    done = _repair(copy)
    assert (done["messages"].kept, done["messages"].lost) == (0, 4)
    assert (done["calls"].kept, done["calls"].lost) == (0, 1)
    assert "memories" not in done
    rc, _, err = run(capsys, "memory", "export", str(target))
    assert rc == 0 and [line for line in err if "WARNING" in line] == []
