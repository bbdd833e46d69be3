"""Memory panel over the real memory store (LanceDB in a temp data dir) with a tiny
deterministic embedder, so no model loads."""
from __future__ import annotations

import hashlib
import json
import re
from types import SimpleNamespace

import numpy as np
import pytest

from tutor_app.ui.memory_panel import MemoryPanel
from tutor_app.ui.memory_source import StoreMemorySource
from tutor_app.ui.services import UiServices


class HashEmbedder:
    """Bag of hashed words: similar texts share dimensions. Enough for list/search/delete."""

    name = "test-hash-64"
    dim = 64

    def embed(self, texts):
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for w in re.findall(r"[a-z]+", text.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
        return out

    def embed_one(self, text):
        return self.embed([text])[0]


@pytest.fixture
def store(settings):
    from tutor_app.memory.storage.store import open_store

    s = open_store(settings.paths.db_dir, HashEmbedder(), settings.profile)
    yield s
    s.close()


@pytest.fixture
def panel(qtbot, settings, store):
    store.add("My name is Minji", category="name", source="extraction")
    store.add("I love hiking in the mountains on weekends", category="interest", source="gate")
    store.add("I want to pass a job interview in English", category="goal", source="extraction")
    old = store.add("I am a nursing student", category="occupation", source="extraction")
    new = store.add("I work as a nurse in Seoul", category="occupation", source="extraction")
    store.supersede(old.id, new.id)
    app = SimpleNamespace(memory=store, paths=settings.paths, embedder=store.embedder)
    services = UiServices(settings=settings, registry=lambda: None,
                          memory=lambda profile: StoreMemorySource.for_app(app, profile))
    p = MemoryPanel(services)
    qtbot.addWidget(p)
    qtbot.waitUntil(lambda: len(p.rows) == 5, timeout=10000)
    return p


def _table_texts(panel):
    return [panel.table.item(r, 0).text() for r in range(panel.table.rowCount())]


def _select(panel, needle):
    for r in range(panel.table.rowCount()):
        if needle in panel.table.item(r, 0).text():
            panel.table.selectRow(r)
            return panel.table.item(r, 0).data(256)  # Qt.UserRole
    raise AssertionError(needle)


def test_lists_profile_and_history(panel):
    texts = _table_texts(panel)
    assert len(texts) == 4 and "I am a nursing student" not in texts  # replaced values hidden
    panel.show_history.setChecked(True)
    assert "I am a nursing student  (replaced)" in _table_texts(panel)
    labels = [w.text() for w in panel.findChildren(type(panel.status)) if w.isVisibleTo(panel)]
    assert "I work as a nurse in Seoul" in labels
    assert any(t.startswith("before: I am a nursing student") for t in labels)
    sources = {panel.table.item(r, 2).text() for r in range(panel.table.rowCount())}
    assert {"said in call", "after a call"} <= sources


def test_search_filters_the_list(qtbot, panel):
    with qtbot.waitSignal(panel.loaded, timeout=10000):  # after the store's search answered
        panel.search.setText("hiking")
    assert panel.status.text().endswith("found") and panel.table.rowCount() >= 1
    assert "hiking" in _table_texts(panel)[0]
    panel.search.clear()
    qtbot.waitUntil(lambda: panel.hits is None and panel.table.rowCount() == 4, timeout=5000)


def test_category_filter(panel):
    panel.category.setCurrentText("goal")
    assert _table_texts(panel) == ["I want to pass a job interview in English"]


def test_delete_one_is_gone_from_the_store(qtbot, panel, store):
    mem_id = _select(panel, "hiking")
    asked = []
    panel.confirm = lambda title, text, action: asked.append(text) or True
    with qtbot.waitSignal(panel.loaded, timeout=10000):
        panel.delete_button.click()
    assert asked and "hiking" in asked[0]
    assert store.get(mem_id) is None
    assert not any("hiking" in t for t in _table_texts(panel))


def test_delete_all_needs_confirmation(qtbot, panel, store):
    panel.confirm = lambda *a: False
    panel.clear_button.click()
    assert store.count() == 5
    panel.confirm = lambda *a: True
    with qtbot.waitSignal(panel.loaded, timeout=10000):
        panel.clear_button.click()
    assert store.count() == 0 and panel.table.rowCount() == 0
    assert "Nothing remembered yet" in panel.empty.text()


def test_edit_and_export(qtbot, panel, store, tmp_path):
    old_id = _select(panel, "hiking")
    panel.ask_text = lambda *a: "I love hiking and climbing"
    with qtbot.waitSignal(panel.loaded, timeout=10000):
        panel.edit_button.click()
    assert store.get(old_id) is None
    assert any(m.text == "I love hiking and climbing" and m.category == "interest" for m in store.list())
    target = tmp_path / "export.json"
    panel.ask_save_path = lambda: str(target)
    panel.export_button.click()
    qtbot.waitUntil(lambda: panel.status.text().startswith("Exported"), timeout=5000)
    data = json.loads(target.read_text())
    assert data["profile"] == "default" and len(data["memories"]) == 5


def test_pause_memory_saves_setting(panel, settings):
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    panel.pause.setChecked(True)
    assert Settings.load(AppPaths.resolve(settings.paths.data_dir)).memory.enabled is False


def test_profiles_are_isolated(qtbot, panel, store, settings):
    panel.ask_text = lambda *a: "Jun"
    changed = []
    panel.profileChanged.connect(changed.append)
    panel.new_profile_button.click()
    qtbot.waitUntil(lambda: panel.profile == "Jun" and panel.rows == [], timeout=10000)
    assert changed == ["Jun"] and settings.profile == "Jun"
    assert sorted(panel.profile_box.itemText(i) for i in range(panel.profile_box.count())) == ["Jun", "default"]
    assert store.count() == 5  # the other profile is untouched
