"""Text to speech with Piper, behind `TextToSpeech`: one float32 chunk per sentence.

Text is normalised first (markup, emoji, numbers: see text_normalize.py), then Piper
splits it into sentences (espeak-ng's own sentence ends) and each sentence is yielded as
soon as it is synthesised, so playback starts while the rest is still being made.

`deterministic=True` zeroes Piper's two noise scales: the VITS model otherwise samples
random noise on every call (ONNX Runtime's random ops are not seedable from Python), so
the same text would give slightly different audio and length each time.
"""
from __future__ import annotations

import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tutor_app.errors import TutorError
from tutor_app.speech.text_normalize import normalize_for_speech

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TtsOptions:
    length_scale: float | None = None  # None = the voice's own; > 1 speaks slower (beginners)
    deterministic: bool = False
    volume: float = 0.9  # Piper peak-normalises each sentence; leave a little headroom
    # Fast start: a long first sentence is spoken as two chunks, split at a phrase break
    # (comma, or before "and", "about", ...), so the first audio is ready in about half
    # the time. Off by default: it costs a little prosody, and it only pays on the first
    # sentence of a reply (`synthesize(text, fast_start=True)` asks for it per call).
    fast_start: bool = False
    fast_start_words: int = 8  # longest first phrase; sentences this short are not split


class PiperTts:
    """Satisfies `TextToSpeech`."""

    def __init__(self, model_path: Path | str, config_path: Path | str | None = None,
                 options: TtsOptions | None = None) -> None:
        from piper import PiperVoice

        self.options = options or TtsOptions()
        model_path = Path(model_path)
        config_path = Path(config_path) if config_path else Path(f"{model_path}.json")
        started = time.perf_counter()
        try:
            self._voice = PiperVoice.load(model_path, config_path=config_path)
        except (OSError, ValueError, KeyError, RuntimeError) as exc:
            raise TutorError(f"cannot load the Piper voice {model_path.name}: {exc}") from None
        self.load_seconds = time.perf_counter() - started
        self._lock = threading.Lock()  # espeak-ng is process-global state

    @property
    def sample_rate(self) -> int:
        return int(self._voice.config.sample_rate)

    def synthesize(self, text: str, fast_start: bool | None = None) -> Iterator[np.ndarray]:
        """Yield float32 mono chunks, one per sentence; nothing for unspeakable text.

        `fast_start` (default: options.fast_start) splits a long first sentence into two
        chunks; the engine asks for it on the first sentence of a reply only.
        """
        spoken = normalize_for_speech(text)
        if not spoken:
            return
        config = self._config()
        parts = [spoken]
        if self.options.fast_start if fast_start is None else fast_start:
            parts = list(split_first_phrase(spoken, self.options.fast_start_words) or parts)
        for part in parts:  # phonemize lazily: the first part plays while the rest is made
            for phonemes in self._phonemize(part):
                chunk = self._audio(phonemes, config)
                if chunk.size:
                    yield chunk

    def synthesize_all(self, text: str) -> np.ndarray:
        """The whole text as one array (for files)."""
        chunks = list(self.synthesize(text))
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)

    def warm_up(self) -> None:
        """Load espeak-ng and run the model once so the first reply starts quickly."""
        for _ in self.synthesize("Hello."):
            pass

    # -- internals -----------------------------------------------------------------------
    def _config(self):
        from piper import SynthesisConfig

        o = self.options
        noise = 0.0 if o.deterministic else None
        return SynthesisConfig(length_scale=o.length_scale, noise_scale=noise, noise_w_scale=noise,
                               normalize_audio=True, volume=o.volume)

    def _phonemize(self, text: str) -> list[list[str]]:
        with self._lock:
            return [p for p in self._voice.phonemize(text) if p]

    def _audio(self, phonemes: list[str], config) -> np.ndarray:
        """One sentence: the same steps as PiperVoice.synthesize, without re-phonemizing."""
        ids = self._voice.phonemes_to_ids(phonemes)
        audio = np.asarray(self._voice.phoneme_ids_to_audio(ids, config), dtype=np.float32)
        peak = float(np.max(np.abs(audio))) if audio.size else 0.0
        audio = audio / peak if peak > 1e-8 else np.zeros_like(audio)
        return np.clip(audio * config.volume, -1.0, 1.0).astype(np.float32)


_BREAK_WORDS = frozenset(
    "and but or so because about with to for that which when if while where after before "
    "than at in on from".split())


def split_first_phrase(text: str, max_words: int = 8) -> tuple[str, str] | None:
    """(head, rest) when the first sentence is long enough to be worth splitting.

    The head ends at the last comma/semicolon/colon within `max_words` words, else
    before the last break word (a conjunction or preposition) there; it ends with a
    comma so espeak gives it a continuing, not a final, intonation. None = no split.
    """
    end = re.search(r"[.!?](?:\s|$)", text)
    first = text[: end.end()] if end else text
    words = first.split()
    if len(words) <= max_words + 3:  # short sentences are fast anyway; keep them whole
        return None
    cut = None
    for i, word in enumerate(words[:max_words], 1):
        if word.endswith((",", ";", ":")) and i >= 3:
            cut = i
    if cut is None:
        for i in range(3, max_words + 1):
            if words[i].lower() in _BREAK_WORDS:
                cut = i
    if cut is None:
        return None
    head = " ".join(words[:cut]).rstrip(",;:") + ","
    rest = " ".join(words[cut:]) + " " + text[len(first):]
    return head, rest.strip()


def write_wav(path: Path | str, samples: np.ndarray, rate: int) -> Path:
    """Write 16-bit PCM mono WAV atomically: a temp file beside it, then rename."""
    import soundfile as sf

    path = Path(path)
    samples = np.asarray(samples, dtype=np.float32).reshape(-1)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise TutorError(f"{path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    os.close(fd)
    try:
        sf.write(tmp, np.clip(samples, -1.0, 1.0), int(rate), subtype="PCM_16", format="WAV")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_tts(settings, registry, options: TtsOptions | None = None) -> PiperTts:
    """The app's voice: settings.speech.tts_voice from the registry."""
    name = settings.speech.tts_voice
    folder = Path(registry.path(name))
    models = sorted(folder.glob("*.onnx"))
    if not models:
        raise TutorError(f"voice '{name}' has no .onnx file in {folder}: "
                         f"run `tutor-app models install {name}`")
    model = models[0]
    return PiperTts(model, Path(f"{model}.json"), options)
