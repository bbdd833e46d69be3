"""A deletion on a full disk (issue #33), with an injected ENOSPC where the disk runs out:
the journal write leaves no empty .tmp and deletes nothing; a deletion whose table rewrite
does not fit says once that it finishes when space is freed, the row stays hidden, every
other command works meanwhile, and the first start with space erases it for real."""
from __future__ import annotations

import errno
import json
import shutil

import pytest

from tests.memory_fixtures import real_embedder
from tutor_app.cli import main

pytestmark = pytest.mark.slow

LANCE_FULL = ("lance error: LanceError(IO): No space left on device (os error 28), /root/.cargo/registry/src/"
              "index.crates.io-1949cf8c6b5b557f/lance-file-13.0.0/src/writer/structural.rs:258:9")


def run(capsys, *args: str) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    rc = main(["--llm", "local", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err and ".rs:" not in out.err and "Logging error" not in out.err, out.err
    return rc, out.out, [line for line in out.err.splitlines() if line.strip()]


def _listed(capsys) -> list[str]:
    rc, out, err = run(capsys, "memory", "list", "--json")
    assert rc == 0
    return [json.loads(line)["id"] for line in out.splitlines()]


def test_a_deletion_on_a_full_disk_waits_for_space_and_the_rest_works(data_dir, capsys, monkeypatch):
    from tutor_app.memory.storage import journal, purge
    from tutor_app.memory.storage.db import MemoryDB

    ids = []
    for text in ("I work as a nurse in Busan.", "My PIN is 4921.", "I like hiking on Sundays."):
        rc, out, _ = run(capsys, "memory", "add", text)
        ids.append(out.strip())
    secret = ids[1]
    rc, _, _ = run(capsys, "chat", "--session", "c1", "--text", "Hello, I'm Minji.")  # a call to end later
    assert rc == 0
    db = data_dir / "memory.lancedb"
    full = f"tutor-app: the disk is full: the data folder {data_dir} cannot be written; free some space on that disk"

    def no_space(*_args, **_kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    with monkeypatch.context() as disk:  # not even the journal fits
        disk.setattr(journal.os, "fsync", no_space)
        rc, _, err = run(capsys, "memory", "delete", secret)
    assert rc == 1 and err == [f"{full} and run the command again"]
    assert sorted(p.name for p in db.glob("pending-purges*")) == []  # no journal, no 0-byte .tmp
    assert secret in _listed(capsys)  # nothing was deleted: the learner can try again

    def rewrite_does_not_fit(self, names=()):
        raise RuntimeError(LANCE_FULL)

    with monkeypatch.context() as disk:  # the journal and the row's hiding fit, the table's rewrite does not
        disk.setattr(MemoryDB, "purge", rewrite_does_not_fit)
        rc, _, err = run(capsys, "memory", "delete", secret)
        assert rc == 1 and err == [f"{full} and run the command again (a deletion in progress finishes by "
                                   "itself then)"]
        assert [p.name for p in db.glob("pending-purges*")] == ["pending-purges.json"]

        rc, out, err = run(capsys, "memory", "list")  # every other command still works, told once
        assert rc == 0 and secret not in out and ids[0] in out and ids[2] in out
        assert len(err) == 1 and "a deletion could not be finished" in err[0] and "is full" in err[0]
        assert "finishes by itself" in err[0] and "free some space" in err[0]
        rc, _, err = run(capsys, "memory", "search", "nurse")
        assert rc == 0 and len(err) == 1
        rc, _, err = run(capsys, "memory", "export", str(data_dir.parent / "export.json"))
        assert rc == 0 and len([line for line in err if "WARNING" in line]) == 1
        assert '"' + ids[0] + '"' in (data_dir.parent / "export.json").read_text(encoding="utf-8")

        def write_does_not_fit(self, *_args, **_kwargs):
            raise RuntimeError(LANCE_FULL)

        disk.setattr(MemoryDB, "add", write_does_not_fit)  # now nothing fits
        disk.setattr(MemoryDB, "update", write_does_not_fit)
        for args in (("chat", "--session", "c2", "--text", "Good morning!"), ("end-call", "--session", "c1")):
            rc, _, err = run(capsys, *args)
            assert rc == 1 and err[-1] == (f"{full} and run the command again (a deletion in progress finishes "
                                           "by itself then)"), (args, err)
            assert len(err) == 2 and "a deletion could not be finished" in err[0], err  # said once each
        free = shutil.disk_usage(data_dir)
        disk.setattr(shutil, "disk_usage", lambda _path: free._replace(free=1024 * 1024))
        rc, out, _ = run(capsys, "doctor")
        assert rc == 1 and f"[!!] data       only 1 MB free on the disk of {data_dir}" in out
        assert "[!!] deletion   a deletion is not finished yet" in out

    rc, out, err = run(capsys, "memory", "list")  # space again: the deletion finishes at this start
    assert rc == 0 and err == [] and secret not in out
    assert not list(db.glob("pending-purges*"))
    from tutor_app.memory.storage.store import open_store

    store = open_store(db, real_embedder(), "default")
    try:
        assert not purge.in_old_versions(store, secret)  # erased, not only hidden
    finally:
        store.close()
