"""Fixtures for the Qt tests: a scripted call backend that emits engine events from
its own threads (like the real engine), fake services, the theme applied."""
from __future__ import annotations

import queue
import threading

import pytest

from tutor_app.call import events as ev
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings

REPORT = {
    "session_id": "s1", "started_at": 1_763_700_000.0, "ended_at": 1_763_700_300.0, "turns": 4,
    "duration_seconds": 300.0, "speaking_seconds": 95.0, "speaking_estimated": False, "words": 180,
    "words_per_minute": 113.7,
    "corrections": [{"original": "I goed to Busan", "better": "I went to Busan", "why": "past of go"},
                    {"original": "She don't like it", "better": "She doesn't like it", "why": ""}],
    "new_words": ["itinerary", "commute", "negotiate"],
    "emotion_timeline": [{"t": 5, "label": "neutral", "score": 0.4}, {"t": 60, "label": "nervousness", "score": 0.7},
                         {"t": 150, "label": "joy", "score": 0.8}, {"t": 280, "label": "optimism", "score": 0.65}],
    "review_source": "model",
}


class ScriptedBackend:
    """Duck-typed call backend (see tutor_app/ui/bridge.py); every event comes from a
    worker thread, never from the thread that called us."""

    def __init__(self, report: dict | None = None) -> None:
        self.sink = None
        self.calls: list[tuple] = []
        self.report = dict(report or REPORT)
        self.session = "s1"
        # One engine thread, like the real one: events keep their order across calls.
        self._queue: queue.Queue = queue.Queue()
        self._thread = threading.Thread(target=self._run, daemon=True, name="fake-engine")
        self._thread.start()

    def _run(self) -> None:
        while True:
            events = self._queue.get()
            for e in events:
                self.sink(e)

    def emit_async(self, events: list) -> None:
        self._queue.put(list(events))

    def start_call(self, off_record: bool, sink, text_only: bool = False, greet: bool | None = None) -> str:
        self.calls.append(("start_call", off_record, text_only))
        self.greet = greet  # False: started by typing (no spoken opening)
        self.sink = sink
        self.emit_async([ev.StateChanged(ev.LISTENING)])
        return self.session

    def send_text(self, text: str) -> None:
        self.calls.append(("send_text", text))
        self.emit_async(turn(text, ["Nice to meet you.", "What do you do?"]))

    def set_muted(self, muted: bool) -> None:
        self.calls.append(("set_muted", muted))
        self.emit_async([ev.StateChanged(ev.PAUSED if muted else ev.LISTENING)])

    def end_call(self) -> None:
        self.calls.append(("end_call",))
        report = dict(self.report, session_id=self.session)
        self.emit_async([ev.StateChanged(ev.ENDED), ev.CallEnded(self.session), ev.ReportReady(self.session, report)])


def turn(user: str, sentences: list[str], label: str = "joy", score: float = 0.7) -> list:
    return [ev.SpeechStarted(), ev.MicLevel(0.1), ev.UserUtterance(user, 1.5), ev.EmotionRead(label, score),
            ev.StateChanged(ev.THINKING), ev.StateChanged(ev.SPEAKING),
            *[ev.TutorSentence(s) for s in sentences], ev.TutorTurnDone(" ".join(sentences)),
            ev.StateChanged(ev.LISTENING)]


@pytest.fixture(autouse=True)
def _gui_thread_gc(qapp):
    """As in the app: garbage (Qt objects included) is collected on the GUI thread only,
    here at the end of each test, never by a worker thread of a later test."""
    import gc

    gc.disable()
    yield
    gc.collect()
    gc.enable()


@pytest.fixture(autouse=True)
def _theme(qapp):
    from tutor_app.ui.theme import apply_theme

    apply_theme(qapp, "light")
    yield


@pytest.fixture(autouse=True)
def _language(qapp):
    """English, as the app starts on an English system (its plural forms: tutor_en.qm); a
    test that switches to Korean is undone after it."""
    from tutor_app.ui.translation import install_translation

    install_translation(qapp, "en")
    yield
    install_translation(qapp, "en")


@pytest.fixture
def settings(data_dir) -> Settings:
    return Settings.load(AppPaths.resolve(data_dir))


@pytest.fixture
def backend() -> ScriptedBackend:
    return ScriptedBackend()
