"""Faults: a newer schema, a crash (kill -9) in the middle of a bulk insert."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from tests.memory_fixtures import REPO, DimOnlyEmbedder
from tutor_app.errors import TutorError
from tutor_app.memory.storage.schema import NewerSchemaError


def _make_newer(db_dir):
    import lancedb

    from tutor_app.memory.storage import schema as S

    conn = lancedb.connect(str(db_dir))
    sch = S.arrow_schema(S.MEMORIES, 384, "all-minilm-l6-v2")
    meta = dict(sch.metadata)
    meta[S.META_VERSION] = b"99"
    conn.create_table(S.MEMORIES, schema=sch.with_metadata(meta))


def test_newer_schema_is_refused_clearly(tmp_path):
    from tutor_app.memory.storage.store import open_store

    db = tmp_path / "memory.lancedb"
    _make_newer(db)
    with pytest.raises(NewerSchemaError, match="newer Tutor .*schema 99"):
        open_store(db, DimOnlyEmbedder(), "alice")


def test_not_a_tutor_table_is_refused(tmp_path):
    import lancedb
    import pyarrow as pa

    from tutor_app.memory.storage.store import open_store

    db = tmp_path / "memory.lancedb"
    lancedb.connect(str(db)).create_table("memories", data=pa.table({"x": [1]}))
    with pytest.raises(TutorError, match="not a Tutor table"):
        open_store(db, DimOnlyEmbedder(), "alice")


CHILD = textwrap.dedent("""
    import sys
    import numpy as np
    from pathlib import Path
    from tests.memory_fixtures import DimOnlyEmbedder
    from tutor_app.memory.storage.store import open_store

    s = open_store(Path(sys.argv[1]), DimOnlyEmbedder(), "alice")
    rng = np.random.default_rng(0)
    batch = 500
    n = 0
    while True:
        vec = rng.standard_normal((batch, 384)).astype(np.float32)
        s.add_many([{"text": f"memory {n + i}"} for i in range(batch)], vectors=vec)
        n += batch
        print(n, flush=True)
""")


def test_kill_9_during_bulk_insert_leaves_a_readable_table(tmp_path):
    from tutor_app.memory.storage.store import open_store

    db = tmp_path / "memory.lancedb"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(db)], stdout=subprocess.PIPE, cwd=REPO, env=env,
                            text=True)
    try:
        committed = 0
        for line in proc.stdout:
            committed = int(line)
            if committed >= 2000:
                break
        os.kill(proc.pid, signal.SIGKILL)  # most likely in the middle of the next add
    finally:
        proc.kill()
        proc.wait()
    s = open_store(db, DimOnlyEmbedder(), "alice")
    n = s.count()
    assert n >= committed and n % 500 == 0  # whole batches only: never half a write
    assert len(s.index()) == n
    texts = {m.text for m in s.list()}
    assert {f"memory {i}" for i in range(committed)} <= texts
    s.add_many([{"text": "after the crash"}], vectors=__import__("numpy").zeros((1, 384), "float32"))
    assert s.count() == n + 1
    s.close()


def test_a_read_that_races_another_process_cleanup_is_read_again(tmp_path):
    """Another process's delete removes the old version's files while we scan them
    (LanceDB: "Not found"); the read runs again on the new version. Other errors, and a
    file that stays missing, still surface."""
    from tutor_app.memory.storage import schema as S
    from tutor_app.memory.storage.db import READ_ATTEMPTS
    from tutor_app.memory.storage.store import open_store

    store = open_store(tmp_path / "db", DimOnlyEmbedder(), "p")
    db = store._db
    calls = []

    def flaky(table):
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("lance error: Not found: db/memories.lance/data/0101.lance")
        return table.count_rows()

    assert db.read(S.MEMORIES, flaky) == 0 and len(calls) == 2

    def always_gone(table):
        raise RuntimeError("lance error: Not found: db/memories.lance/data/0101.lance")

    with pytest.raises(RuntimeError, match="Not found"):
        db.read(S.MEMORIES, always_gone)

    seen = []

    def broken(table):
        seen.append(1)
        raise ValueError("bad filter")

    with pytest.raises(ValueError):
        db.read(S.MEMORIES, broken)
    assert len(seen) == 1 and READ_ATTEMPTS > 1  # not retried
    store.close()
