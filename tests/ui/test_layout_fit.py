"""Every page fits its window at 800x600, 1120x740 (the default) and 1280x800: nothing is
clipped on the right or at the bottom, what is longer than the window scrolls, tables keep
a readable text column and their buttons, labels show their whole text.

In English and in Korean. The real MainWindow with realistic content: a report with corrections, new words, an
emotion series, fluency and "trouble hearing" words; memories with long texts (real
store); practice items (real store); the real model manifest; the Settings dialog.
"""
from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import QCoreApplication, QRect, Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QHeaderView,
    QLabel,
    QScrollArea,
    QTableView,
    QWidget,
)

from tests.ui.conftest import REPORT, ScriptedBackend, turn
from tests.ui.test_memory_panel import HashEmbedder
from tutor_app.call import events as ev
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.ui.main_window import MainWindow
from tutor_app.ui.memory_source import StoreMemorySource
from tutor_app.ui.services import AudioDevices, UiServices

SIZES = ((800, 600), (1120, 740), (1280, 800))
MANIFEST = Path(__file__).resolve().parents[2] / "models" / "models.toml"

FULL_REPORT = dict(
    REPORT,
    corrections=[{"original": "She don't like coffee in the morning because it makes her nervous",
                  "better": "She doesn't like coffee in the morning because it makes her nervous",
                  "why": "with she / he / it, use doesn't in the present simple"},
                 *REPORT["corrections"]],
    new_words=["itinerary", "commute", "negotiate", "shift rotation", "reassure", "triage", "workload",
               "overwhelmed", "accommodation"],
    emotion_timeline=[{"t": 5, "label": "neutral", "score": 0.4}, {"t": 40, "label": "disapproval", "score": 0.5},
                      {"t": 60, "label": "nervousness", "score": 0.7}, {"t": 100, "label": "curiosity", "score": 0.6},
                      {"t": 150, "label": "joy", "score": 0.8}, {"t": 200, "label": "sadness", "score": 0.5},
                      {"t": 240, "label": "annoyance", "score": 0.55}, {"t": 280, "label": "optimism", "score": 0.65}],
    fluency={"words_per_minute": 121.4, "mean_run_words": 6.3, "pause_ratio": 0.214, "spoken_turns": 9,
             "unsure_words": [{"word": w, "probability": 0.3} for w in
                              ("itinerary", "Gyeongbokgung", "comfortable", "particularly", "vegetables",
                               "accommodation", "thoroughly", "entrepreneur")]},
)

LONG_MEMORIES = (
    ("My name is Minji and my friends call me Min", "name"),
    ("I work as a nurse in the emergency department of a big hospital in Seoul, mostly night shifts", "occupation"),
    ("I love hiking in the mountains on weekends with my sister and our old dog called Bori", "interest"),
    ("I want to pass a job interview in English next month for a hospital in Melbourne, Australia", "goal"),
    ("Prefers corrections at the end of each answer, not in the middle of a sentence", "preference"),
    ("Felt nervous about the interview on Friday and wants to practise small talk first", "emotion"),
)


@pytest.fixture
def services(settings, tmp_path):
    from types import SimpleNamespace

    from tutor_app.llm.recommend import recommend_llm
    from tutor_app.memory.storage.store import open_store
    from tutor_app.practice.store import PracticeStore
    from tutor_app.tutor.report import Correction

    store = open_store(settings.paths.db_dir, HashEmbedder(), settings.profile)
    added = [store.add(text, category=category, source="extraction") for text, category in LONG_MEMORIES]
    older = store.add("I am a nursing student at Yonsei University in Seoul", category="occupation", source="gate")
    store.supersede(older.id, added[1].id)  # "6 memories, 1 replaced"
    practice = PracticeStore(tmp_path / "practice", settings.profile)
    practice.add_from_call("c1", [Correction(c["original"], c["better"], c["why"], "grammar")
                                  for c in FULL_REPORT["corrections"]],
                           ["accommodation", "shift rotation"], [c["original"] for c in FULL_REPORT["corrections"]])
    registry = ModelRegistry.load(tmp_path / "models", MANIFEST)
    app = SimpleNamespace(memory=store, paths=settings.paths, embedder=store.embedder)
    yield UiServices(settings=settings, registry=lambda: registry, memory=lambda p: StoreMemorySource.for_app(app, p),
                     practice=lambda: practice, compute=lambda: "CPU, int8",
                     recommend=lambda: recommend_llm(registry),
                     audio_devices=lambda: AudioDevices(["Built-in Microphone (analog stereo)"], ["Speakers"],
                                                        "Built-in Microphone (analog stereo)", "Speakers"))
    store.close()


# -- the checks ---------------------------------------------------------------------------
def _name(w: QWidget) -> str:
    text = w.text() if isinstance(w, (QLabel, QAbstractButton)) else ""
    return f"{type(w).__name__}#{w.objectName() or w.accessibleName()}" + (f" {text[:40]!r}" if text else "")


def _text_width(label: QLabel) -> int:
    text = label.text()
    if label.textFormat().name == "RichText" or (label.textFormat().name == "AutoText"
                                                    and ("<" in text and ">" in text)):
        doc = QTextDocument()
        doc.setDefaultFont(label.font())
        doc.setDocumentMargin(0)
        doc.setHtml(text)
        return int(doc.idealWidth())
    return max(label.fontMetrics().horizontalAdvance(line) for line in text.split("\n"))


def _inside_parent(w: QWidget) -> str | None:
    parent = w.parentWidget()
    if parent is None or w.isWindow():
        return None
    area = parent.parentWidget()
    if isinstance(area, QScrollArea) and area.widget() is w:
        # Scrolled content: it may be larger than the viewport only where a scroll bar shows.
        if w.width() > parent.width() + 1 and not area.horizontalScrollBar().isVisible():
            return f"{_name(w)} is {w.width()} px wide in a {parent.width()} px scroll area (no scroll bar)"
        if w.height() > parent.height() + 1 and not area.verticalScrollBar().isVisible():
            return f"{_name(w)} is {w.height()} px high in a {parent.height()} px scroll area (no scroll bar)"
        return None
    if isinstance(area, QAbstractItemView) and parent is area.viewport():
        # A cell widget: rows scroll, columns must be inside unless a scroll bar shows.
        if w.geometry().right() > parent.width() + 1 and not area.horizontalScrollBar().isVisible():
            return f"{_name(w)} in {_name(area)} ends at x={w.geometry().right()} of {parent.width()}"
        return None
    if isinstance(area, QAbstractScrollArea) and parent is area.viewport():
        return None  # contents of other scrolled views (text edits, lists) scroll down by design
    if not parent.rect().adjusted(-1, -1, 1, 1).contains(w.geometry()):
        g = w.geometry()
        return (f"{_name(w)} at {g.x()},{g.y()} {g.width()}x{g.height()} is outside {_name(parent)} "
                f"{parent.width()}x{parent.height()}")
    return None


def _text_fits(w: QWidget) -> str | None:
    if isinstance(w, QLabel) and w.text() and not w.wordWrap() and w.pixmap().isNull():
        need, have = _text_width(w), w.contentsRect().width()
        if need > have + 1:
            return f"{_name(w)} needs {need} px, has {have}"
    if isinstance(w, QLabel) and w.text() and w.wordWrap() and w.height() + 1 < w.heightForWidth(w.width()):
        return f"{_name(w)} is {w.height()} px high, its wrapped text needs {w.heightForWidth(w.width())}"
    if isinstance(w, QAbstractButton) and w.text() and w.width() + 1 < w.minimumSizeHint().width():
        return f"{_name(w)} is {w.width()} px, its text needs {w.minimumSizeHint().width()}"
    return None


def _table_fits(table: QTableView) -> list[str]:
    out = []
    header = table.horizontalHeader()
    view_w = table.viewport().width()
    if not table.horizontalScrollBar().isVisible():
        for c in range(header.count()):
            if not header.isSectionHidden(c) and header.sectionViewportPosition(c) + header.sectionSize(c) > view_w + 1:
                out.append(f"{_name(table)} column {c} ends at "
                           f"{header.sectionViewportPosition(c) + header.sectionSize(c)} of {view_w} px")
    stretched = [c for c in range(header.count()) if header.sectionResizeMode(c) == QHeaderView.ResizeMode.Stretch]
    for c in range(header.count()):
        if not header.isSectionHidden(c) and c not in stretched and header.sectionSize(c) + 1 < header.sectionSizeHint(c):
            out.append(f"{_name(table)} column {c} is {header.sectionSize(c)} px: its header "
                       f"{table.model().headerData(c, Qt.Orientation.Horizontal)!r} needs {header.sectionSizeHint(c)}")
    # Readable: a third of the table, or its whole text when that is shorter.
    text_w = sum(header.sectionSize(c) for c in stretched)
    if stretched and text_w < min(0.35 * view_w, sum(table.sizeHintForColumn(c) for c in stretched)):
        out.append(f"{_name(table)} text column(s) {stretched} are {text_w} px of {view_w}: not readable")
    if not stretched:
        out.append(f"{_name(table)} has no text column that takes the room")
    return out


def _overlaps(parent: QWidget) -> list[str]:
    """Widgets side by side in a layout never cover each other (a long checkbox under a
    status label is clipped although both lie inside the page)."""
    layout = parent.layout()
    if layout is None:
        return []
    kids = [w for w in parent.findChildren(QWidget, options=Qt.FindChildOption.FindDirectChildrenOnly)
            if w.isVisible() and not w.isWindow() and layout.indexOf(w) >= 0]
    out = []
    for i, a in enumerate(kids):
        for b in kids[i + 1:]:
            both = a.geometry().intersected(b.geometry())
            if both.width() > 1 and both.height() > 1:
                out.append(f"{_name(a)} and {_name(b)} overlap in {_name(parent)}")
    return out


def fit_problems(top: QWidget) -> list[str]:
    """Everything visible in `top` that does not fit."""
    out = []
    if top.minimumSizeHint().width() > top.width() or top.minimumSizeHint().height() > top.height():
        out.append(f"{_name(top)} minimum size hint {top.minimumSizeHint().toTuple()} > {top.size().toTuple()}")
    if top.minimumWidth() > top.width() or top.minimumHeight() > top.height():
        out.append(f"{_name(top)} minimum size {top.minimumSize().toTuple()} > {top.size().toTuple()}")
    for w in top.findChildren(QWidget):
        if not w.isVisible() or w.window() is not top:
            continue
        for problem in (_inside_parent(w), _text_fits(w)):
            if problem:
                out.append(problem)
        out.extend(_overlaps(w))
        if isinstance(w, QAbstractItemView) and w.horizontalScrollBar().isVisible():
            out.append(f"{_name(w)} scrolls sideways")
        if isinstance(w, QTableView):
            out.extend(_table_fits(w))
        legend = getattr(w, "legend_rects", None)
        if callable(legend):
            out.extend(f"{_name(w)} legend entry at {r.getRect()} outside {w.width()}x{w.height()}"
                       for r in legend() if not QRect(0, 0, w.width(), w.height()).contains(r))
    return out


def settle(qtbot, widget: QWidget) -> None:
    """Let layouts (and the layouts that react to them) finish."""
    for _ in range(4):
        QApplication.processEvents()
        for w in [widget, *widget.findChildren(QWidget)]:
            if w.layout() is not None:
                w.layout().activate()
    qtbot.wait(1)


# -- the test ------------------------------------------------------------------------------
@pytest.mark.parametrize("language", ("en", "ko"))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_page_fits_its_window(qtbot, qapp, services, size, language):
    from tutor_app.ui.settings_dialog import SettingsDialog
    from tutor_app.ui.translation import install_translation

    assert install_translation(qapp, language) == language  # Korean: longer or taller strings, a CJK font

    backend = ScriptedBackend(FULL_REPORT)
    services.make_backend = lambda: backend
    window = MainWindow(services, warm_up=False)
    qtbot.addWidget(window)
    window.resize(*size)
    window.show()
    qtbot.waitExposed(window)
    problems: dict[str, list[str]] = {}

    def check(page: str, top: QWidget) -> None:
        settle(qtbot, top)
        found = fit_problems(top)
        if top is window and window.size().toTuple() != size:
            found.insert(0, f"the window is {window.size().toTuple()}, not {size}")
        if found:
            problems[page] = found

    # First start: the banner says what is missing, the call page below it.
    window.show_problem("models", "install speech recognition (whisper-tiny.en), voice (piper-en_US-joe-medium) "
                                  "to start talking. It works offline and takes a minute.")
    check("call + banner", window)
    window.banner.dismiss()
    older = dict(FULL_REPORT, session_id="s0", started_at=FULL_REPORT["started_at"] - 86400, words_per_minute=92.0)
    window.history.set_reports([older])

    # A call: the emotion chip next to the title, the state and the timer.
    view = window.call_view
    with qtbot.waitSignal(window.bridge.callStarted, timeout=3000):
        view.call_button.click()
    backend.emit_async(turn("She don't like coffee in the morning.", ["Oh, why not?", "Tell me more."],
                            label="disapproval", score=0.58) + [ev.StateChanged(ev.THINKING)])
    thinking = QCoreApplication.translate("CallView", "Thinking…")
    qtbot.waitUntil(lambda: view.emotion_chip.isVisible() and view.state_label.text() == thinking, timeout=3000)
    check("call (in a call)", window)

    # It ends on its report.
    view.end_call()
    qtbot.waitUntil(lambda: window.stack.currentWidget() is window.history, timeout=3000)
    assert window.history.calls.count() == 2
    check("progress + report", window)
    window.show_page("call")
    check("call (after the call)", window)

    window.show_page("practice")
    practice = window.page("practice")
    qtbot.waitUntil(lambda: practice.table.rowCount() >= 3, timeout=10_000)
    practice.table.selectRow(0)
    check("practice", window)

    window.show_page("memory")
    memory = window.page("memory")
    qtbot.waitUntil(lambda: memory.table.rowCount() == len(LONG_MEMORIES), timeout=10_000)
    check("memory", window)

    window.show_page("models")
    models = window.page("models")
    qtbot.waitUntil(lambda: models.table.rowCount() > 10 and models.suggestion.isVisible(), timeout=10_000)
    check("models", window)

    dialog = SettingsDialog(services, window)
    qtbot.addWidget(dialog)
    dialog.resize(min(dialog.sizeHint().width(), size[0]), min(dialog.sizeHint().height(), size[1]))
    dialog.show()
    qtbot.waitExposed(dialog)
    for i in range(dialog.tabs.count()):
        dialog.tabs.setCurrentIndex(i)
        check(f"settings: {dialog.tabs.tabText(i)}", dialog)
    dialog.close()
    window.bridge.close()
    assert not problems, "\n".join(f"{page}:\n  " + "\n  ".join(found[:12]) for page, found in problems.items())

