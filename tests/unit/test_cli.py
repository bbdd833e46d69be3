"""The command-line contract: help, exit codes, one clear line on errors."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tutor_app.cli import build_parser, main


def run_cli(*args: str, env_extra: dict | None = None, input_text: str | None = None):
    import os

    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run([sys.executable, "-m", "tutor_app", *args], capture_output=True, text=True,
                          env=env, input=input_text)


def test_help_lists_the_contract_commands():
    out = run_cli("--help")
    assert out.returncode == 0
    for command in ("transcribe", "speak", "models", "doctor", "bench"):
        assert command in out.stdout


def test_usage_errors_exit_2():
    assert run_cli("no-such-command").returncode == 2
    assert run_cli("models", "frobnicate").returncode == 2


def test_global_options_before_or_after_the_command(data_dir):
    parser = build_parser()
    before = parser.parse_args(["--profile", "kim", "models", "status"])
    after = parser.parse_args(["models", "status", "--profile", "kim"])
    assert before.profile == after.profile == "kim"
    neither = parser.parse_args(["models", "status"])
    assert neither.profile is None and neither.debug is False


def test_unwritable_data_dir_is_one_clear_line(tmp_path):
    import os

    if os.geteuid() == 0:
        target = "/proc/tutor-app-cannot-write-here"  # root ignores permission bits
    else:
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        target = str(locked / "data")
    out = run_cli("--data-dir", target, "doctor")
    assert out.returncode == 1
    assert "Traceback" not in out.stderr and "Traceback" not in out.stdout
    assert "cannot create" in out.stdout or "no write permission" in out.stdout


def test_errors_in_process_return_codes(data_dir, capsys):
    assert main(["models", "install", "no-such-model"]) == 2
    assert "unknown model" in capsys.readouterr().err


def test_idle_thread_pools_sleep_instead_of_spinning(monkeypatch, capsys):
    """OpenMP's and numpy's OpenBLAS's idle threads spin by default: on two cores they
    starve a live call's other threads. The entry point asks them to sleep (one BLAS thread)
    before anything imports numpy."""
    from tutor_app.cli import main

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    with pytest.raises(SystemExit):
        main(["--help"])
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    assert os.environ["OPENBLAS_NUM_THREADS"] == "1"
