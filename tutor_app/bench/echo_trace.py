"""What `bench echo` records of each interruption besides the app's stamps: the listener's
own account (its debug lines about speech over the tutor, caught in memory), a line for
each missed one, and the time as heard - the microphone's feed and the speaker on one
recording (bench/outside.py)."""
from __future__ import annotations

import logging
import re

from tutor_app.core.types import FRAME_MS


class ListenerLines(logging.Handler):
    """The debug lines about speech over the tutor, kept in memory while the calls
    run (not passed on to the log file or the console, whatever `--debug` says)."""

    NAME = "tutor_app.call.listen.over_tutor"  # the module that logs speech over the tutor

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.said: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        text = record.getMessage()
        if "over the tutor" in text:
            self.said.append(text.removeprefix("speech over the tutor").lstrip(": "))

    def clear(self) -> None:
        self.said = []

    def hidden_ms(self) -> float:
        """The start of the speech over the tutor AEC3 hid from the VAD, as the listener
        found it ("confirmed (N frames AEC3 hid before it)"): 0 when it found none."""
        found = (re.search(r"confirmed \((\d+) frames AEC3 hid", line) for line in self.said)
        return next((int(m.group(1)) * FRAME_MS for m in found if m), 0.0)

    def __enter__(self) -> "ListenerLines":
        logger = logging.getLogger(self.NAME)
        self._saved = logger.level, logger.propagate
        logger.setLevel(logging.DEBUG)
        logger.propagate = False
        logger.addHandler(self)
        return self

    def __exit__(self, *exc: object) -> None:
        logger = logging.getLogger(self.NAME)
        logger.removeHandler(self)
        level, logger.propagate = self._saved
        logger.setLevel(level)  # not the attribute: setLevel also clears logging's level cache


def missed_line(why: str, stamps: dict, lines: ListenerLines) -> str:
    """A missed interruption's line: why, which of the call's signals came (started, duck,
    pause, interrupt, resumes) and the listener's own account, so that a miss is not a
    bare count."""
    came = ", ".join(sorted(stamps)) or "none"
    return f"missed: {why} (signals: {came}); " + (" | ".join(lines.said) or "nothing heard over the tutor")


def time_outside(recording, barge, rounds, timed: dict, app) -> None:
    """Each interruption timed outside the app (bench/outside.py): from the clip's first
    voiced sample in the microphone's feed to the tutor's silence, on one recording of both -
    what the learner hears, with every buffer of the sound system in it. Adds `outside_ms`
    to each kind's results (none when the clips could not all be found)."""
    import soundfile as sf

    from tutor_app.bench.outside import clip_starts, stopped_after
    from tutor_app.speech.resample import resample

    mic, speaker = recording
    samples, rate = sf.read(str(barge), dtype="float32")
    clip = resample(samples, rate, 16000)
    starts = clip_starts(mic, clip, sum(n for _, n in rounds), app.vad)
    found = len(starts) == sum(n for _, n in rounds)
    for kind, n in rounds:
        mine, starts = starts[:n], starts[n:]
        stops = [stopped_after(speaker, at) for at in mine] if found else []
        timed[kind]["outside_ms"] = [round((stop - at) * 1000) for at, stop in zip(mine, stops) if stop is not None]
