"""How far the audio thread is behind the microphone (call/mic.py `Behind`): said once when
it falls behind, once when it has caught up, with the most it was."""
from __future__ import annotations

import logging

from tutor_app.call.mic import Behind


def test_falling_behind_and_catching_up_are_each_said_once(caplog):
    behind = Behind()
    with caplog.at_level(logging.DEBUG, logger="tutor_app.call.mic"):
        for lag in (0.05, 0.2, 0.4, 0.3, 0.06, 0.05):
            behind.block(10.0 - lag, now=10.0)
        behind.block(None, now=10.0)  # a block without a capture time: nothing to say
    said = [r.getMessage() for r in caplog.records]
    assert said == ["the audio thread is 200 ms behind the microphone",
                    "the audio thread caught up (it was up to 400 ms behind)"]
    assert round(behind.most_s, 3) == 0.4
