"""Import parsing, lexical matching, time windows and merge input cleaning: no model."""
from datetime import datetime, timezone

import pytest

from tutor_app.errors import TutorError
from tutor_app.memory.profile.merge import _values
from tutor_app.memory.retrieval import lexical, timeref
from tutor_app.memory.storage.schema import check_text, parse_time
from tutor_app.memory.storage.transfer import parse_import


def test_import_lines_and_errors_name_the_line():
    items = parse_import(b'{"text": "I love lattes", "meta": {"k": [1, 2]}}\n\n{"text": "b", "importance": 0.9}\n')
    assert [i["text"] for i in items] == ["I love lattes", "b"] and items[0]["meta"] == {"k": [1, 2]}
    assert all(i["source"] == "import" for i in items)
    with pytest.raises(TutorError, match="line 2: not valid JSON.*nothing imported"):
        parse_import(b'{"text": "a"}\n{"text": \n')
    with pytest.raises(TutorError, match="line 1: missing \"text\""):
        parse_import(b'{"txt": "a"}\n')
    with pytest.raises(TutorError, match="line 1: \"meta\" must be an object"):
        parse_import(b'{"text": "a", "meta": "x"}\n')
    with pytest.raises(TutorError, match="line 2: not valid UTF-8"):
        parse_import(b'{"text": "a"}\n{"text": "\xff\xfe"}\n')


def test_text_limits():
    with pytest.raises(TutorError, match="empty"):
        check_text(" \n\t")
    with pytest.raises(TutorError, match="too long"):
        check_text("x" * 100_000)
    with pytest.raises(TutorError, match="UTF-8"):
        check_text("bad \udcff surrogate")
    assert check_text("  verbatim  ") == "  verbatim  "


def test_times():
    assert parse_time("2026-03-01T10:00:00Z") == datetime(2026, 3, 1, 10, tzinfo=timezone.utc)
    assert parse_time("2026-03-01").tzinfo is not None
    with pytest.raises(TutorError):
        parse_time("next tuesday")


def test_tokens_are_symmetric():
    assert "latte" in lexical.tokens("I love lattes") or "latt" in lexical.tokens("I love lattes")
    assert lexical.tokens("presentation") == lexical.tokens("present")
    assert lexical.tokens("what do you know?") == []


def test_time_window():
    now = datetime(2026, 5, 14, 15, 0, tzinfo=timezone.utc)  # a Thursday
    start, end = timeref.window("what did I eat yesterday?", now)
    assert datetime.fromtimestamp(start, timezone.utc).day == 13
    assert timeref.window("what do I like?", now) is None
    start, _ = timeref.window("what did I do on Monday?", now)
    assert datetime.fromtimestamp(start, timezone.utc).day == 11


def test_merge_tolerates_wrong_types():
    assert _values("AI, travel; cooking", single=False) == ["AI", "travel", "cooking"]
    assert _values(None, single=False) == []
    assert _values(["hiking", None, 3, ["nested"], {"value": "v"}, "null"], single=False) == ["hiking", "3", "nested", "v"]
    assert _values(["Minji", "Other"], single=True) == ["Minji"]
    assert _values(["My sister and I went to Jeju"], single=False) == ["My sister and I went to Jeju"]


def test_query_expansion_and_generic_terms():
    groups = lexical.query_groups("What sport did I pick up?")
    assert groups[0][0] == "sport" and lexical.stem("swimming") in groups[0]
    idx = lexical.Bm25()
    for t in ("I started swimming on Tuesdays", "Work was boring", "I work as a nurse at a hospital"):
        idx.add(t)
    cov = lexical.coverage(idx, lexical.query_groups("which sport do I do?"))
    assert cov[0] > 0 and cov[1] == 0
    one_word = lexical.coverage(idx, lexical.query_groups("work?"))
    assert 0 < one_word[1] < 1.0  # a single generic word earns only part of the weight
