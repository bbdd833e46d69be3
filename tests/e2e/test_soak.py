"""Soak: the real window (an X server, Xvfb, not offscreen: the real paint path runs) on the
virtual sound card with the bundled offline tutor model (llama.cpp), real Whisper, VAD
and Piper, for three calls of six spoken turns, each call started with Space and ended
with Esc. Longer than any other test, as long as a learner's short practice: what
`Fatal Python error: none_dealloc` in the level meter (PySide6 6.12.0) needed to show.

The app runs in a child process (tests/e2e/soak_driver.py, `tutor-app gui` driven from
inside) so that a crash ends that process, not pytest: the test watches its exit code,
its stderr and the JSON summary it prints, with a deadline for a hang."""
from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO, missing_prerequisite

pytestmark = [pytest.mark.audio, pytest.mark.slow]

DRIVER = Path(__file__).with_name("soak_driver.py")
CALLS, TURNS = 3, 6
DEADLINE_S = 1200  # a hang, not slowness: each step of a turn has its own limit in the driver


@pytest.fixture
def xvfb_display(tmp_path):
    """A private Xvfb; its display number comes back on a pipe once it accepts clients."""
    if shutil.which("Xvfb") is None:
        missing_prerequisite("Xvfb is not installed (scripts/system-packages.sh installs xvfb)")
    read_fd, write_fd = os.pipe()
    log = tmp_path / "xvfb.log"
    with open(log, "wb") as err:
        server = subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), "-screen", "0", "1280x800x24",
                                   "-nolisten", "tcp"], pass_fds=(write_fd,), stdout=subprocess.DEVNULL, stderr=err)
    os.close(write_fd)
    try:
        ready, _, _ = select.select([read_fd], [], [], 60)
        number = os.read(read_fd, 64).decode().strip() if ready else ""
        if not number:
            server.kill()
            missing_prerequisite(f"Xvfb did not start: {log.read_text(errors='replace')[-500:]}")
        yield f":{number}"
    finally:
        os.close(read_fd)
        server.terminate()
        server.wait(timeout=30)


def run_soak(display: str, tmp_path: Path) -> tuple[int, str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("QT_QPA_PLATFORM", "TUTOR_APP_DATA_DIR", "TUTOR_APP_PROFILE", "TUTOR_APP_LLM",
                        "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL")}
    env["DISPLAY"] = display
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [os.environ.get("PYTHONPATH")])])
    env.setdefault("PYTHONFAULTHANDLER", "1")
    stderr_path = tmp_path / "soak.stderr"
    with open(stderr_path, "wb") as err:
        proc = subprocess.Popen([sys.executable, str(DRIVER), "--data-dir", str(tmp_path / "data"),
                                 "--calls", str(CALLS), "--turns", str(TURNS)],
                                env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=err, text=True)
        try:
            out, _ = proc.communicate(timeout=DEADLINE_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
            pytest.fail(f"the soak hung: no end within {DEADLINE_S} s; its stderr ends with:\n"
                        f"{tail(stderr_path.read_text(errors='replace'))}", pytrace=False)
    return proc.returncode, out, stderr_path.read_text(errors="replace")


def tail(text: str, lines: int = 40) -> str:
    kept = [line for line in text.splitlines() if "underrun occurred" not in line]  # ALSA's harmless noise
    return "\n".join(kept[-lines:])


def crash_report(err: str) -> str:
    """The fatal error's own lines and the stack of the thread that crashed (faulthandler)."""
    crash = err[err.index("Fatal Python error"):]
    head = crash.splitlines()[:2]
    current = crash.find("Current thread")
    stack = crash[current:].split("\n\n")[0].splitlines()[:16] if current >= 0 else []
    return "\n".join([*head, *stack])


def test_three_calls_of_six_spoken_turns_in_the_real_window(sound_card, xvfb_display, tmp_path):
    code, out, err = run_soak(xvfb_display, tmp_path)

    if "Fatal Python error" in err:
        pytest.fail(f"the app crashed (exit {code}):\n{crash_report(err)}", pytrace=False)
    summary_line = next((line for line in reversed(out.splitlines()) if line.startswith("{")), None)
    if summary_line is None:
        pytest.fail(f"the soak ended without its summary (exit {code}); stderr ends with:\n{tail(err)}", pytrace=False)
    summary = json.loads(summary_line)
    calls = summary["calls"]
    learner_turns = sum(c["learner_turns"] for c in calls)
    print(f"\nsoak: {len(calls)} calls, {learner_turns} learner turns, "
          f"{sum(c['replies'] for c in calls)} replies in {summary.get('wall_s', '?')} s; per call: {calls}")

    assert summary["failure"] is None, f"{summary['failure']}\nstderr ends with:\n{tail(err)}"
    assert summary["ok"] and code == 0 and summary["exit_code"] == 0, (code, summary)
    assert summary["platform"] == "xcb"  # the real window on the X server, not offscreen
    assert len(calls) == CALLS
    for c in calls:  # every learner turn answered (a greeting, if any, counts apart)
        assert c["learner_turns"] == TURNS and c["replies"] == TURNS, c
    # Every call is in the history: the Past calls list and the `calls` table.
    assert summary["history_count"] == CALLS
    stored = {s["session_id"]: s["turns"] for s in summary["stored_calls"]}
    assert set(stored) == {c["session_id"] for c in calls}, (stored, calls)
    assert all(turns >= TURNS for turns in stored.values()), stored
    # A binding that drops references to None shows here long before it crashes: after the
    # first call's one-off loading, the count at the end of each call must not fall.
    counts = [c["none_refcount"] for c in calls]
    assert summary["none_refcount_after"] >= summary["none_refcount_before"], summary
    assert all(later >= counts[0] for later in counts[1:]), f"None's refcount fell across the calls: {counts}"
