"""`tutor-app ...` run inside the test process through `cli.main`: the same parser, handlers
and data folder as a real run, without a new interpreter importing LanceDB, the anthropic
SDK and the models again (1.5-5 s a start on 2 cores). The tests use it for commands that
read the state back for an assertion or seed it for real processes that follow; a command
whose process is the point (a kill, a race, the start that recovers, a whole run's stderr
and log file, a process-wide setting) stays a real process.

Each run gets a fresh App (state comes from disk), and what `main` changes in the process
(environment, umask, the root logger's handlers, the levels of the loggers there were) is
put back afterwards."""
from __future__ import annotations

import contextlib
import io
import logging
import os
import subprocess
import sys


def run_in_process(*args: str, input_text: str | None = None, llm: str | None = "anthropic",
                   ) -> subprocess.CompletedProcess:
    """One `tutor-app [--llm LLM] ARGS...` run, to its end, like `subprocess.run(..., text=True)`."""
    from tutor_app.cli import main

    argv = [*(["--llm", llm] if llm else []), *args]
    stdin = io.TextIOWrapper(io.BytesIO((input_text or "").encode("utf-8")), encoding="utf-8")
    stdout = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    stderr = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", write_through=True)
    environ, umask = dict(os.environ), os.umask(0o077)
    os.umask(umask)
    root = logging.getLogger()
    levels = {name: logger.level for name, logger in _loggers()}
    levels[""] = root.level
    saved_stdin, sys.stdin = sys.stdin, stdin
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse's usage errors: the code a process would exit with
                code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    finally:
        sys.stdin = saved_stdin
        for handler in [h for h in root.handlers if getattr(h, "_tutor_app", False)]:  # log file, console
            root.removeHandler(handler)
            handler.close()
        root.setLevel(levels[""])
        for name, logger in _loggers():
            if name in levels:
                logger.setLevel(levels[name])
        os.umask(umask)
        os.environ.clear()
        os.environ.update(environ)
    out, err = (_text(stream) for stream in (stdout, stderr))
    return subprocess.CompletedProcess(["tutor-app", *argv], code, out, err)


def _loggers() -> list[tuple[str, logging.Logger]]:
    return [(name, logger) for name, logger in list(logging.Logger.manager.loggerDict.items())
            if isinstance(logger, logging.Logger)]


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    buffer = stream.buffer
    assert isinstance(buffer, io.BytesIO)
    return buffer.getvalue().decode("utf-8")
