"""The Settings window's voice preview plays on the speaker chosen there, picked as a
call picks it (speech/sound_devices.resolve_device), not on the system default."""
from __future__ import annotations

import numpy as np

from tests.unit.call_fakes import FakeSd
from tutor_app.ui.services import play_preview


class PlayingSd(FakeSd):
    def __init__(self) -> None:
        super().__init__()
        self.played: list[tuple[int, int | None]] = []
        self.waited = False

    def play(self, audio, rate, device=None) -> None:
        self.played.append((rate, device))

    def wait(self) -> None:
        self.waited = True


class Voice:
    sample_rate = 22050

    def synthesize_all(self, text: str):
        return np.zeros(10, dtype=np.float32)


def test_plays_on_the_chosen_speaker():
    sd = PlayingSd()
    play_preview(sd, Voice(), "Hi!", "fake speaker")
    assert sd.played == [(22050, 1)] and sd.waited  # device 1: the fake speaker


def test_no_choice_is_the_system_default():
    sd = PlayingSd()
    play_preview(sd, Voice(), "Hi!", "")
    assert sd.played == [(22050, None)]
