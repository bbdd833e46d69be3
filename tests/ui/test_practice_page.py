"""The Practice page over a real practice store (a JSON file in a temp data dir): what is
due next call, what is mastered, each item's history, search, and delete for real."""
from __future__ import annotations

from datetime import datetime, timezone

import pytest

from tutor_app.practice.outcome import Outcome
from tutor_app.practice.store import PracticeStore
from tutor_app.tutor.report import Correction
from tutor_app.ui.practice_page import PracticePage

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)


@pytest.fixture
def store(tmp_path):
    clock = [T0]
    store = PracticeStore(tmp_path / "practice", "minji", clock=lambda: clock[0])
    store.add_from_call("c1", [Correction("Yesterday I go to the hospital", "Yesterday I went to the hospital",
                                          "a past event", "tense"),
                               Correction("I arrived to Seoul", "I arrived in Seoul", "", "preposition")],
                        ["exhausted"], ["Yesterday I go to the hospital", "I arrived to Seoul"])
    went = next(i for i in store.items() if i.said.startswith("Yesterday"))
    store.mark_planned("c2", [went])
    store.record("c2", [Outcome(went.id, "used", "Then I went to the pharmacy.")])
    store.clock = clock
    return store


def rows(page: PracticePage) -> list[tuple[str, ...]]:
    table = page.table
    return [tuple(table.item(r, c).text() for c in range(table.columnCount())) for r in range(table.rowCount())]


def test_the_page_shows_due_items_history_and_filters(qtbot, store):
    page = PracticePage(lambda: store)
    qtbot.addWidget(page)
    qtbot.waitUntil(lambda: page.table.rowCount() == 3, timeout=5_000)
    shown = {r[0]: r for r in rows(page)}
    assert shown["Yesterday I go to the hospital"][1:] == ("Yesterday I went to the hospital", "tense",
                                                          "In 2 days", "✓")
    assert shown["I arrived to Seoul"][3] == "Next call" and shown["exhausted"][2] == "word"
    assert page.summary.text().startswith("2 for the next call · 0 mastered · 3 in all")
    page.filter.setCurrentText("Due next call")
    assert sorted(r[0] for r in rows(page)) == ["I arrived to Seoul", "exhausted"]
    page.filter.setCurrentText("Everything")
    page.search.setText("seoul")
    assert [r[0] for r in rows(page)] == ["I arrived to Seoul"]
    page.search.setText("")
    page.table.selectRow(next(i for i, r in enumerate(rows(page)) if r[0].startswith("Yesterday")))
    assert "you used the better form" in page.detail.text() and "Then I went to the pharmacy." in page.detail.text()


def test_delete_asks_then_forgets_for_real(qtbot, store, monkeypatch):
    page = PracticePage(lambda: store)
    qtbot.addWidget(page)
    qtbot.waitUntil(lambda: page.table.rowCount() == 3, timeout=5_000)
    row = next(i for i, r in enumerate(rows(page)) if r[0] == "I arrived to Seoul")
    page.table.selectRow(row)
    monkeypatch.setattr(page, "confirm", lambda *a: False)
    page.delete_selected()
    assert len(store.items()) == 3  # cancelled: nothing lost
    monkeypatch.setattr(page, "confirm", lambda *a: True)
    with qtbot.waitSignal(page.loaded, timeout=5_000):
        page.delete_selected()
    qtbot.waitUntil(lambda: page.table.rowCount() == 2, timeout=5_000)
    assert b"arrived to Seoul" not in store.path.read_bytes()
    assert page.status.text() == "Deleted."


def test_an_empty_profile_says_what_will_appear(qtbot, tmp_path):
    page = PracticePage(lambda: PracticeStore(tmp_path, "new"))
    qtbot.addWidget(page)
    qtbot.waitUntil(lambda: "Nothing yet" in page.detail.text(), timeout=5_000)
    assert page.table.rowCount() == 0
