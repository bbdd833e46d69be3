"""`bench echo`'s trace of each interruption: the listener's own lines about speech over
the tutor, caught in memory for the run - and only there (not the log file, whatever the
level), with the logger as it was afterwards."""
from __future__ import annotations

import logging

from tutor_app.bench.echo_trace import ListenerLines


def test_the_listeners_lines_are_caught_and_go_nowhere_else():
    logger = logging.getLogger(ListenerLines.NAME)
    elsewhere: list[str] = []

    class Root(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            elsewhere.append(record.getMessage())

    root = Root()
    logging.getLogger().addHandler(root)
    before = logger.level, logger.propagate
    try:
        with ListenerLines() as lines:
            logger.debug("speech over the tutor: %d voiced (%s): the tutor pauses", 9, "the floor by its sound")
            logger.debug("a line about something else")
            assert lines.said == ["9 voiced (the floor by its sound): the tutor pauses"]
            lines.clear()
            assert lines.said == []
        assert elsewhere == []
        assert (logger.level, logger.propagate) == before
    finally:
        logging.getLogger().removeHandler(root)


def test_the_start_aec3_hid_is_read_from_the_listeners_confirmed_line():
    """An interruption is timed from its first voiced sample: the start the listener found
    AEC3 hid counts; no line, or none found, counts nothing."""
    logger = logging.getLogger(ListenerLines.NAME)
    with ListenerLines() as lines:
        assert lines.hidden_ms() == 0.0
        logger.debug("speech over the tutor: confirmed (%d frames AEC3 hid before it)", 0)
        assert lines.hidden_ms() == 0.0
        lines.clear()
        logger.debug("speech over the tutor: confirmed (%d frames AEC3 hid before it)", 5)
        logger.debug("speech over the tutor: %d voiced (%s): the tutor pauses", 14, "the floor by its sound")
        assert lines.hidden_ms() == 160.0


def test_the_lines_are_caught_from_the_module_that_logs_speech_over_the_tutor():
    """A renamed or moved module would leave the trace empty and every stop timed without
    the start AEC3 hid: the name is the logger's own."""
    from tutor_app.call.listen import over_tutor

    assert ListenerLines.NAME == over_tutor.log.name


def test_a_missed_interruption_keeps_a_line_of_what_came():
    """A miss is not a bare count: which signals came and what the listener said."""
    from tutor_app.bench.echo_trace import missed_line

    logger = logging.getLogger(ListenerLines.NAME)
    with ListenerLines() as lines:
        assert missed_line("no turn ended within 60 s", {}, lines) == (
            "missed: no turn ended within 60 s (signals: none); nothing heard over the tutor")
        logger.debug("speech over the tutor: confirmed (%d frames AEC3 hid before it)", 2)
        line = missed_line("the turn ended without an interruption", {"started": 1.0, "duck": 1.1}, lines)
    assert line == ("missed: the turn ended without an interruption (signals: duck, started); "
                    "confirmed (2 frames AEC3 hid before it)")
