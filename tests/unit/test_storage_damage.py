"""Which errors are a damaged table, and the start's cheap check for a cut-off file."""
from __future__ import annotations

import errno

from tutor_app.memory.storage.damage import damage_line, files_cut_off, is_damage, reason, version_of


def test_lancedb_failing_to_read_its_files_is_damage_and_nothing_else_is():
    damaged = [
        RuntimeError("lance error: LanceError(IO): Generic LocalFileSystem error: failed to fill whole buffer, "
                     "/rustc/2d81/library/core/src/io/mod.rs:250:5"),
        ValueError("Invalid input, column metadata range for column index 0 is outside metadata region"),
        RuntimeError("lance error: Encountered corrupt file binary mini-block: value offset decreases"),
    ]
    assert all(is_damage(e) for e in damaged)
    not_damage = [
        RuntimeError("lance error: LanceError(IO): No space left on device (os error 28)"),  # a full disk
        OSError(errno.ENOSPC, "No space left on device"),
        RuntimeError("lance error: Not found: db/memories.lance/data/0101.lance"),  # another process's cleanup
        ValueError("Invalid input, Error parsing statement: SELECT 1 FROM t WHERE bad ((("),  # our filter
        ValueError("bad filter"),
        KeyError("id"),
        RuntimeError("lance error: LanceError(IO): Permission denied (os error 13)"),
    ]
    assert not any(is_damage(e) for e in not_damage)
    # a write that fails is damage only when it could not decode what it read
    assert not is_damage(RuntimeError("lance error: LanceError(IO): Some write error"), reading=False)
    assert is_damage(damaged[0], reading=False)


def test_the_line_names_the_table_s_folder_and_what_to_do_without_source_paths(tmp_path):
    why = reason(RuntimeError("lance error: LanceError(IO): Generic LocalFileSystem error: failed to fill whole "
                              "buffer, /rustc/2d81/library/core/src/io/mod.rs:250:5"))
    assert why == "failed to fill whole buffer"
    line = damage_line(tmp_path, "messages", why)
    assert line.startswith(f"the call transcripts in {tmp_path / 'messages.lance'} cannot be read "
                           "(failed to fill whole buffer)")
    assert "`tutor-app doctor --repair`" in line and "backup" in line


def test_a_file_without_lance_s_end_is_cut_off(tmp_path):
    table = tmp_path / "memories.lance"
    (table / "data").mkdir(parents=True)
    (table / "_versions").mkdir()
    (table / "data" / "a.lance").write_bytes(b"x" * 50 + b"LANC")
    (table / "data" / "b.lance").write_bytes(b"x" * 50)  # cut off
    (table / "_versions" / f"{2**64 - 1 - 2}.manifest").write_bytes(b"m" * 20 + b"LANC")  # version 2
    (table / "_versions" / f"{2**64 - 1 - 3}.manifest").write_bytes(b"m" * 3)  # version 3, the newest: cut off
    assert [p.name for p in files_cut_off(table)] == ["b.lance", f"{2**64 - 1 - 3}.manifest"]
    assert version_of(table / "_versions" / "7.manifest") == 7  # the older naming: the version itself
