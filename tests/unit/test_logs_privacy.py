"""The log file never holds what was said unless the learner opts in (TUTOR_APP_LOG_CONTENT=1),
and a deletion can erase the lines that name what it deleted."""
from __future__ import annotations

import logging
from dataclasses import dataclass

import pytest

from tutor_app import logs


@dataclass
class Event:
    text: str


@pytest.fixture
def log_file(tmp_path, monkeypatch):
    monkeypatch.delenv(logs.ENV_LOG_CONTENT, raising=False)
    root = logging.getLogger()
    saved = (list(root.handlers), root.level)
    levels = {name: logging.getLogger(name).level for name in logs.BODY_LOGGERS}
    path = tmp_path / "logs" / "tutor-app.log"
    logs.setup_logging(path, debug=True)
    yield path
    for h in list(root.handlers):
        if getattr(h, "_tutor_app", False):
            root.removeHandler(h)
            h.close()
    root.handlers[:] = saved[0]
    root.setLevel(saved[1])
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


def _flush() -> None:
    for h in logging.getLogger().handlers:
        h.flush()


def test_debug_keeps_request_bodies_and_objects_out(log_file):
    logging.getLogger("anthropic._base_client").setLevel(logging.DEBUG)  # as ANTHROPIC_LOG=debug does
    logging.getLogger("anthropic._base_client").debug("Request options: %s", {"json_data": "my PIN is 4921"})
    logging.getLogger("httpx").debug("body my PIN is 4921")
    logging.getLogger("tutor_app.x").debug("event %r at %d ms, %s", Event("my PIN is 4921"), 12, {"stt": 3.5})
    logging.getLogger("tutor_app.x").info("reply was %s", logs.said("my PIN is 4921"))
    logging.getLogger("httpx").warning("connection refused")
    _flush()
    text = log_file.read_text()
    assert "4921" not in text
    assert "event <Event> at 12 ms, {'stt': 3.5}" in text and "reply was <14 chars>" in text
    assert "connection refused" in text


def test_content_only_on_opt_in(log_file, monkeypatch):
    monkeypatch.setenv(logs.ENV_LOG_CONTENT, "1")
    logging.getLogger("tutor_app.x").info("reply was %s", logs.said("my PIN is 4921"))
    logging.getLogger("tutor_app.x").info("event %r", Event("locker 5532"))
    _flush()
    text = log_file.read_text()
    assert "reply was my PIN is 4921" in text and "locker 5532" in text


def test_erase_lines_in_the_file_and_its_rotations(log_file):
    log = logging.getLogger("tutor_app.x")
    log.info("call s-123 started")
    log.info("another call s-999")
    _flush()
    rotated = log_file.with_name(log_file.name + ".1")
    rotated.write_text("old line about s-123\nold line about s-777\n")
    assert logs.erase_lines({"s-123"}) == 2
    assert "s-123" not in log_file.read_text() + rotated.read_text()
    assert "s-999" in log_file.read_text() and "s-777" in rotated.read_text()
    log.info("after the erase")  # the handler keeps appending to the same file
    _flush()
    assert log_file.read_text().splitlines()[-1].endswith("after the erase")
