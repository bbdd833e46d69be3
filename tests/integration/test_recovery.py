"""One recovery path at every start: calls whose end-of-call work never completed (a
failed extraction, `end-call` killed half-way, a live call whose process died) are
finished in the background by the next `chat`, `call`, `end-call` or GUI start. The starts,
kills and lease holders are real processes (or the real window); the calls they find are
seeded, and the stored calls read back, in this process (tests/in_process.py)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process

pytestmark = pytest.mark.slow

HOLD_LEASE = """
import sys
from pathlib import Path
from tutor_app.tutor.recovery import CallLease
lease = CallLease(Path(sys.argv[1]), sys.argv[2])
print("held", flush=True)
sys.stdin.read()
"""


def cli(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "anthropic", *args],
                          capture_output=True, text=True, env=dict(os.environ), input=input_text, timeout=300)


def _hold_lease(live_dir: Path, session_id: str) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", HOLD_LEASE, str(live_dir), session_id],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def _seed(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
    """A command that only sets up what the real start below it finds (from disk)."""
    out = run_in_process(*args, input_text=input_text)
    assert out.returncode == 0, out.stderr
    return out


def _calls(session: str | None = None) -> list[dict]:
    out = run_in_process("memory", "export")
    assert out.returncode == 0, out.stderr
    calls = json.loads(out.stdout)["calls"]
    return [c for c in calls if session is None or c["session_id"] == session]


def test_a_lease_is_abandoned_only_when_its_process_is_gone(tmp_path):
    from tutor_app.tutor.recovery import CallLease, abandoned

    live = tmp_path / "live"
    assert not abandoned(live, "none")  # a text session holds no lease: never "abandoned"
    mine = CallLease(live, "mine")
    assert not abandoned(live, "mine")  # held by this process
    other = _hold_lease(live, "other")
    try:
        assert not abandoned(live, "other")  # held by a running process
        other.kill()  # SIGKILL: no clean-up runs, the OS drops the lock
        other.wait()
        assert abandoned(live, "other")
    finally:
        if other.poll() is None:
            other.kill()
    mine.release()
    assert not (live / "mine.lease").exists() and not abandoned(live, "mine")


def test_end_call_killed_during_extraction_is_finished_by_the_next_start(fake_anthropic):
    turns = "Hi, I'm Dohyun.\nI work as a pharmacist.\nI like tennis.\n"
    fake_anthropic.push(Reply("Hi Dohyun!"), Reply("Nice."), Reply("Fun!"))
    _seed("chat", "--session", "k1", input_text=turns)
    # The extraction request hangs (no response headers); end-call is killed while it waits.
    fake_anthropic.push(Reply("{}", headers_delay=120))
    sent = len(fake_anthropic.requests)
    proc = subprocess.Popen([sys.executable, "-m", "tutor_app", "--llm", "anthropic", "end-call", "--session", "k1"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=dict(os.environ))
    try:
        assert fake_anthropic.wait_requests(sent + 1)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    [call] = _calls("k1")
    assert call["ended_at"] and not call["extracted"]  # the end time was recorded first
    # Any later start finishes it: here a new text turn in another session. Recovery runs
    # beside that turn, so every request gets the same (JSON) answer whatever the order.
    fake_anthropic.default = Reply(json.dumps({"name": "Dohyun", "occupation": "pharmacist",
                                               "interests": ["tennis"]}))
    out = cli("chat", "--session", "k2", "--text", "Good morning!")
    assert out.returncode == 0, out.stderr
    [call] = _calls("k1")
    assert call["extracted"] and call["report"]["turns"] == 3


def test_a_dead_live_call_is_finished_and_a_running_one_is_left_alone(fake_anthropic, data_dir):
    turns = "Hi, I'm Seoyeon.\nI work as a designer.\nI like baking bread.\n"
    for session in ("dead", "alive"):
        fake_anthropic.push(Reply("Hi!"), Reply("Nice."), Reply("Yum!"))
        _seed("chat", "--session", session, input_text=turns)
    live = data_dir / "live"
    dead, alive = _hold_lease(live, "dead"), _hold_lease(live, "alive")
    dead.kill()
    dead.wait()
    try:
        fake_anthropic.default = Reply(json.dumps({"name": "Seoyeon", "occupation": "designer"}))
        out = cli("chat", "--session", "other", "--text", "Hello!")
        assert out.returncode == 0, out.stderr
        by_session = {c["session_id"]: c for c in _calls()}
        assert by_session["dead"]["ended_at"] and by_session["dead"]["extracted"]
        assert by_session["alive"]["ended_at"] is None and not by_session["alive"]["extracted"]
        assert by_session["other"]["ended_at"] is None  # a text session stays open for --session
        assert not (live / "dead.lease").exists()
    finally:
        alive.kill()
        alive.wait()


def test_a_report_rebuilt_in_a_new_process_keeps_the_emotion_scores(fake_anthropic):
    fake_anthropic.push(Reply("Oh no!"), Reply("That's great!"))
    _seed("chat", "--session", "e1", input_text="I am so sad and lonely today.\nI am so happy, I passed my exam!\n")
    fake_anthropic.default = Reply('{"corrections": [], "new_words": []}')
    end = cli("end-call", "--session", "e1", "--json")
    assert end.returncode == 0, end.stderr
    timeline = json.loads(end.stdout)["report"]["emotion_timeline"]
    assert [p["label"] for p in timeline] == ["sadness", "joy"]
    assert all(p["score"] > 0.3 for p in timeline)  # not the 0.0 of a label-only transcript


def test_the_desktop_app_finishes_an_unextracted_call_when_it_starts(qtbot, fake_anthropic, data_dir):
    """The GUI's start is a start like any other: its warm-up runs the recovery."""
    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.ui.main_window import MainWindow
    from tutor_app.ui.services import UiServices

    fake_anthropic.push(Reply("Hi!"), Reply("Nice."), Reply("Fun!"))
    _seed("chat", "--session", "g1", input_text="Hi, I'm Jiwoo.\nI work as a chef.\nI like cycling.\n")
    # Malformed twice: the extraction fails (the rules keep the plain facts) and waits for a retry.
    fake_anthropic.push(Reply("not json"), Reply("still not json"), Reply('{"corrections": [], "new_words": []}'))
    failed = _seed("end-call", "--session", "g1", "--json")
    assert json.loads(failed.stdout)["extraction"] == "rules", failed.stdout
    [call] = _calls("g1")
    assert call["ended_at"] and not call["extracted"]

    fake_anthropic.default = Reply(json.dumps({"name": "Jiwoo", "occupation": "chef", "interests": ["cycling"]}))
    app = App(Settings.load(AppPaths.resolve(data_dir), llm_backend="anthropic"))
    window = MainWindow(UiServices.from_app(app))
    qtbot.addWidget(window)
    with qtbot.waitSignal(window.warmedUp, timeout=120_000):
        window.show()
    assert app.recovery is not None
    app.recovery.close()  # the background run is done
    assert [o.session_id for o in app.recovery.outcomes] == ["g1"]
    window.close()
    app.close()
    [call] = _calls("g1")
    assert call["extracted"]


def test_the_desktop_app_tells_of_a_call_a_crash_cut_off(qtbot, fake_anthropic, data_dir):
    """A live call as a crash leaves it (its messages stored, no end, a lease whose process
    is dead): the next start of the desktop app finishes it, says so in a banner, and the
    call is in Past calls."""
    from PySide6.QtCore import Qt

    from tutor_app.app import App
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.ui.main_window import MainWindow
    from tutor_app.ui.services import UiServices

    fake_anthropic.push(Reply("Hi!"), Reply("Nice."), Reply("Fun!"))
    _seed("chat", "--session", "crashed", input_text="Hi, I'm Hana.\nI work as a baker.\nI like hiking.\n")
    lease = _hold_lease(data_dir / "live", "crashed")
    lease.kill()  # SIGKILL: the call's process dies with its call open
    lease.wait()
    [call] = _calls("crashed")
    assert call["ended_at"] is None and not call["extracted"]

    fake_anthropic.default = Reply(json.dumps({"name": "Hana", "occupation": "baker", "interests": ["hiking"]}))
    app = App(Settings.load(AppPaths.resolve(data_dir), llm_backend="anthropic"))
    window = MainWindow(UiServices.from_app(app))
    qtbot.addWidget(window)
    try:
        with qtbot.waitSignal(window.lostCallsShown, timeout=180_000):
            window.show()
        assert window.banner.isVisible()
        assert window.banner.message == "<b>Your last call ended unexpectedly</b> — its report is ready"
        listed = [window.history.calls.item(i).data(Qt.ItemDataRole.UserRole)["session_id"]
                  for i in range(window.history.calls.count())]
        assert listed == ["crashed"]
        assert window.history.report.report["turns"] == 3
    finally:
        window.close()
        app.close()
    [call] = _calls("crashed")
    assert call["ended_at"] and call["extracted"]
