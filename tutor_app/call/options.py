"""The options of a live call's loop (call/loop.py): segmenter, echo handling,
turn-taking, device-loss timing. A value, made from the settings."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from tutor_app.speech.echo import EchoOptions
from tutor_app.speech.segmenter import SegmenterOptions
from tutor_app.call.listen.turn_taking import TurnTakingOptions

if TYPE_CHECKING:
    from tutor_app.settings import SpeechSettings
    from tutor_app.speech.sound_devices import DeviceInfo


@dataclass(frozen=True)
class LoopOptions:
    segmenter: SegmenterOptions = field(default_factory=SegmenterOptions)
    echo: EchoOptions = field(default_factory=EchoOptions)
    turns: TurnTakingOptions = field(default_factory=TurnTakingOptions)
    stall_s: float | None = 3.0  # no microphone block this long = the device is gone
    reopen_every_s: float = 1.0  # while paused, try the microphone again this often
    give_up_s: float = 120.0  # then stop trying (typed turns still work)
    warm_up: bool = True  # load/warm STT and TTS before the first turn
    # Start STT this long into a silence that may end the turn: if the turn does end there,
    # the transcript is (nearly) ready; if the learner goes on, the guess is dropped.
    # 0 = at the end-of-turn check.
    early_stt_ms: int = 64

    @classmethod
    def from_settings(cls, speech: SpeechSettings, devices: Sequence[DeviceInfo] | None = None,
                      turns: TurnTakingOptions | None = None, canceller: bool = True, why_not: str = "",
                      **overrides: Any) -> "LoopOptions":
        """`devices` (sound_devices.list_devices) decide the echo mode when it is "auto";
        `canceller`: whether the echo canceller runs (else speaker mode becomes gated)."""
        turns = turns or TurnTakingOptions(vad_silence_ms=speech.silence_ms)
        return cls(segmenter=SegmenterOptions.from_settings(speech),
                   echo=EchoOptions.from_settings(speech, devices, canceller, why_not), turns=turns, **overrides)

    def with_judge(self, judge: bool) -> "LoopOptions":
        """The segmenter's own silence window: the thinking time when an end-of-turn judge
        decides earlier, else the VAD-only rule."""
        silence = self.turns.thinking_ms if judge else self.turns.vad_silence_ms
        return replace(self, segmenter=replace(self.segmenter, silence_ms=silence))
