"""The practice file validated by its schema (issue #33): `[1, 2]`, a torn file or an item
of the wrong type is named once with what to do, set aside as it was (renamed, never
overwritten), what was in good order is kept, and `practice list` and `memory export`
go on in the same run (a `chat` with a damaged practice file: test_damaged_database.py)."""
from __future__ import annotations

import json

import pytest

from tutor_app.cli import main

pytestmark = pytest.mark.slow

GOOD = {"id": "w1", "kind": "word", "said": "itinerary", "better": "", "why": "", "type": "", "session_id": "s1",
        "turn": 0, "created_at": "2026-01-05T10:00:00+00:00", "card": {}, "reviews": []}
FILES = {
    "a list": ("[1, 2]", "not a practice file: a JSON list", "practice starts again with no items", []),
    "torn": ('{"format": "tutor-app-practice", "version": 2, "items": [{"id": "w1", "ki',
             "it cannot be read (JSONDecodeError)", "practice starts again with no items", []),
    "ill-typed": (json.dumps({"version": 2, "items": [GOOD, {**GOOD, "id": "w2", "turn": "first"}],
                              "plans": {"s1": 5}}),
                  "wrong types: 1 item, the plan of s1", "the 1 item in good order was kept", ["w1"]),
}


def run(capsys, *args: str) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    rc = main(["--llm", "local", *args])
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "unexpected error" not in out.err, out.err
    return rc, out.out, [line for line in out.err.splitlines() if line.strip()]


@pytest.mark.parametrize("case", FILES)
def test_a_damaged_practice_file_is_set_aside_and_practice_and_export_go_on(data_dir, capsys, case):
    from tutor_app.practice.store import PracticeStore

    content, why, kept, items = FILES[case]
    path = PracticeStore(data_dir / "practice", "default").path
    path.parent.mkdir(parents=True)
    path.write_text(content, encoding="utf-8")

    rc, out, err = run(capsys, "practice", "list", "--json")
    assert rc == 0 and [json.loads(line)["id"] for line in out.splitlines()] == items
    assert len(err) == 1, err
    assert f"the practice file {path} of profile 'default' was damaged ({why})" in err[0]
    assert "set aside as " + path.name + ".damaged-" in err[0] and kept in err[0]
    assert "restore it from a backup" in err[0]  # what to do
    aside = list(path.parent.glob(path.name + ".damaged-*"))
    assert [p.read_text(encoding="utf-8") for p in aside] == [content]  # kept as it was

    target = data_dir / "export.json"
    rc, _, err = run(capsys, "memory", "export", str(target))
    assert rc == 0 and not [line for line in err if "WARNING" in line], err  # named once: the file is sound now
    assert [i["id"] for i in json.loads(target.read_text(encoding="utf-8"))["practice"]] == items
