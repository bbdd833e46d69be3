"""A full disk (issue #33), with an injected ENOSPC: the log handler never prints
Python's "--- Logging error ---" traceback, and a storage error (LanceDB's, which names a
Rust source file) ends in one line naming the data folder and what to do."""
from __future__ import annotations

import errno
import io
import logging
import os
import subprocess
import sys
import textwrap

from tests.memory_fixtures import REPO
from tutor_app import logs
from tutor_app.storage_errors import storage_line

LANCE_FULL = ("lance error: LanceError(IO): No space left on device (os error 28), /root/.cargo/registry/src/"
              "index.crates.io-1949cf8c6b5b557f/lance-file-13.0.0/src/writer/structural.rs:258:9")


class FullDisk(io.StringIO):
    """A log file's stream on a disk with no space left (seek and tell still work)."""

    def write(self, text: str) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    def flush(self) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")


def test_the_log_handler_drops_a_line_quietly_when_the_disk_is_full(tmp_path, capfd):
    logs.setup_logging(tmp_path / "logs" / "tutor-app.log")
    try:
        file_handler = next(h for h in logging.getLogger().handlers
                            if isinstance(h, logging.FileHandler) and getattr(h, "_tutor_app", False))
        file_handler.stream = FullDisk()  # type: ignore[assignment]
        log = logging.getLogger("tutor_app.test")
        log.info("an id only")
        try:
            raise RuntimeError(LANCE_FULL)
        except RuntimeError:
            log.warning("could not record memory access times", exc_info=True)
    finally:
        logs.setup_logging(None)
    err = capfd.readouterr().err
    assert "Logging error" not in err and "Traceback" not in err, err
    assert err.strip().splitlines() == [
        "tutor-app: WARNING: could not record memory access times (RuntimeError: lance error: LanceError(IO): "
        "No space left on device (os error 28))"]  # one line, no source path


def test_storage_errors_are_one_line_with_the_folder_and_what_to_do(tmp_path):
    line = storage_line(RuntimeError(LANCE_FULL), tmp_path)
    assert line == (f"the disk is full: the data folder {tmp_path} cannot be written; free some space on that "
                    "disk and run the command again")
    assert storage_line(OSError(errno.ENOSPC, "No space left on device"), tmp_path, pending_deletion=True).endswith(
        "(a deletion in progress finishes by itself then)")
    broken = storage_line(RuntimeError("lance error: LanceError(IO): failed to fill whole buffer, "
                                       "/root/.cargo/registry/src/x/lance-core/src/ops/function.rs:250:5"), tmp_path)
    assert broken is not None and ".rs" not in broken and "/root" not in broken
    assert str(tmp_path / "memory.lancedb") in broken and "tutor-app doctor" in broken
    assert storage_line(ValueError("something else"), tmp_path) is None


CHILD = textwrap.dedent("""
    import errno, io, sys
    from tutor_app import cli, logs
    from tutor_app.memory.storage.db import MemoryDB

    def full(self, name, data):
        raise RuntimeError(%r)

    MemoryDB.add = full  # the write LanceDB makes on a full disk fails like this

    class FullDisk(io.StringIO):
        def write(self, text):
            raise OSError(errno.ENOSPC, "No space left on device")
        def flush(self):
            raise OSError(errno.ENOSPC, "No space left on device")

    setup = logs.setup_logging
    def on_full_disk(log_file, debug=False):
        setup(log_file, debug)
        for h in logs.logging.getLogger().handlers:
            if isinstance(h, logs.logging.FileHandler):
                h.stream = FullDisk()
    import tutor_app.app as app_module
    app_module.setup_logging = on_full_disk
    sys.exit(cli.main(sys.argv[1:]))
""") % LANCE_FULL


def test_memory_add_on_a_full_disk_is_one_line(data_dir):
    out = subprocess.run([sys.executable, "-c", CHILD, "memory", "add", "I work as a nurse."], capture_output=True,
                         text=True, env=dict(os.environ), timeout=300, cwd=REPO)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines() == [
        f"tutor-app: the disk is full: the data folder {data_dir} cannot be written; free some space on that disk "
        "and run the command again"], out.stderr


def test_a_journal_write_on_a_full_disk_leaves_no_empty_tmp_file(tmp_path, monkeypatch):
    import pytest

    from tutor_app.memory.storage import journal

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(journal.os, "fsync", full)
    with pytest.raises(OSError):
        journal.rewrite_jobs(tmp_path, lambda jobs: [*jobs, journal.PurgeJob("default", "memory", ["m1"])])
    assert list(tmp_path.iterdir()) == []  # neither the journal nor a 0-byte .tmp
