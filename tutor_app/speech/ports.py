"""The speech seams that mention speech's own types (a `BiasList`, a `Verdict`): what the
tutor engine and the live call call on Whisper and on the end-of-turn judge. The seams
that need only core types (`TextToSpeech`, `VoiceActivity`) are in core/protocols.py."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from tutor_app.core.types import AudioClip, Transcript

if TYPE_CHECKING:
    import numpy as np

    from tutor_app.speech.bias import BiasList
    from tutor_app.speech.end_of_turn import Verdict


@runtime_checkable
class SpeechToText(Protocol):
    def transcribe(self, audio: AudioClip | Path | str, bias: "BiasList | None" = None) -> Transcript:
        """Transcribe a clip or an audio file; silence/noise gives an empty text. `bias`:
        names to favour (speech/bias.py `transcribe_with` passes it only when non-empty)."""
        ...


@runtime_checkable
class PartTranscriber(Protocol):
    """The words of the end of an utterance, for the streaming transcriber
    (speech/streaming.py): `WhisperStt.transcribe_part`. `audio`: the utterance so far
    (16 kHz mono float32); only the words from sample `start` on are decoded, as following
    the words `prompt`; `bias`: names to favour (hotwords). Word timings, pauses and speech
    seconds in the Transcript are of the whole `audio`; `window_s`: the encoder's window
    for this decode (`SttOptions.encoder_window_s`; None: the model's own setting)."""

    def transcribe_part(self, audio: "np.ndarray", start: int = 0, prompt: str = "",
                        bias: "BiasList | None" = None, window_s: float | None = None) -> Transcript: ...


@runtime_checkable
class TurnJudge(Protocol):
    """call/listen/judge.py `EndOfTurnJudge`: is a paused turn complete?"""

    def __call__(self, audio: "np.ndarray", transcript: str) -> "Verdict": ...
