"""Several `tutor-app` processes started at once, as two windows or a window and a command
would race: their results, once all have ended."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def at_once(*args: str, copies: int = 2) -> list[subprocess.CompletedProcess]:
    procs = [subprocess.Popen([sys.executable, "-m", "tutor_app", *args], cwd=REPO, env=dict(os.environ),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(copies)]
    outs = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=600)
        outs.append(subprocess.CompletedProcess(proc.args, proc.returncode, stdout, stderr))
    return outs
