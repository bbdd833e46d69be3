"""`bench echo --stall-ms`: the fault it injects (a stopped sound server) on a real process,
and the one clear message when there is no server to stop."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tutor_app.bench.echo import _Stall
from tutor_app.errors import TutorError


def _state(pid: int) -> str:
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]


def test_the_stall_stops_the_server_and_always_lets_it_go_on(tmp_path, monkeypatch):
    server = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / "pulse").mkdir()
        (tmp_path / "pulse" / "pid").write_text(f"{server.pid}\n")
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
        seen: list[str] = []
        monkeypatch.setattr("tutor_app.bench.echo.time.sleep", lambda s: seen.append(_state(server.pid)))
        _Stall(150)()
        assert seen == ["T"]  # stopped for the stall ...
        assert _state(server.pid) != "T"  # ... and running again after it
    finally:
        server.kill()
        server.wait()


@pytest.mark.parametrize("content", [None, "", "not a pid"])
def test_no_server_to_stall_is_one_clear_message(tmp_path, monkeypatch, content):
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
    if content is not None:
        (tmp_path / "pulse").mkdir()
        (tmp_path / "pulse" / "pid").write_text(content)
    with pytest.raises(TutorError, match="no PulseAudio daemon pid"):
        _Stall(150)
