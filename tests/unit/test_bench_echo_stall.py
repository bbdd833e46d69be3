"""`bench echo --stall-ms`: the fault it injects (a stopped sound server) on a real process,
and the one clear message when there is no server to stop."""
from __future__ import annotations

import os
import subprocess

import pytest

from tutor_app.bench.echo import _Stall
from tutor_app.errors import TutorError


def test_the_stall_stops_the_server_and_always_lets_it_go_on(tmp_path, monkeypatch):
    server = subprocess.Popen(["sleep", "60"])
    try:
        (tmp_path / "pulse").mkdir()
        (tmp_path / "pulse" / "pid").write_text(f"{server.pid}\n")
        monkeypatch.setenv("XDG_RUNTIME_DIR", str(tmp_path))
        stopped: list[bool] = []

        def during_the_stall(_seconds: float) -> None:  # the child's stop, as the kernel reports it
            stopped.append(os.WIFSTOPPED(os.waitpid(server.pid, os.WUNTRACED)[1]))

        monkeypatch.setattr("tutor_app.bench.echo.time.sleep", during_the_stall)
        _Stall(150)()
        assert stopped == [True]  # stopped for the stall ...
        assert os.WIFCONTINUED(os.waitpid(server.pid, os.WCONTINUED)[1])  # ... and running again
        assert server.poll() is None
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
