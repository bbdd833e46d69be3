"""Which language a spoken turn is in, and its words in that language: a multilingual
Whisper (`whisper-base` in models/models.toml, optional), asked only about a turn the
English recogniser did not understand (tutor/hear_again.py decides what to do with it).

Whisper reads the language off the encoder output of the first 30 s window; a turn of up
to 30 s is then decoded from that same encoder output, so a Korean turn costs one encoder
pass (the slow part on a CPU), not two. A longer turn is decoded in pieces of at most 20 s,
each cut in its quietest moment (`windows`). The model loads on first use, once per process
(`shared`): most calls never need it.
"""
from __future__ import annotations

import functools
import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tutor_app.core.types import SAMPLE_RATE, AudioClip
from tutor_app.errors import TutorError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.settings import Settings

log = logging.getLogger(__name__)

MODEL = "whisper-base"  # the manifest's multilingual model
WINDOW_S = 30.0  # Whisper's window: the language is read off the first one
MAX_NEW_TOKENS = 200  # a turn's words; Whisper's own cap is 448 tokens with the prompt


@dataclass(frozen=True)
class Hearing:
    """What the multilingual model made of a turn. `text` is decoded only when the turn
    is in the language asked for, at least as surely as asked; else it is ""."""
    language: str  # Whisper's best guess: "ko", "en", ...
    probability: float  # its probability of that language
    text: str = ""
    avg_logprob: float = 0.0  # Whisper's mean token log-probability of `text`
    no_speech_prob: float = 0.0
    compression_ratio: float = 0.0  # text that repeats itself compresses well: Whisper looping
    seconds: float = 0.0  # the time it took


@dataclass(frozen=True)
class EarOptions:
    beam_size: int = 2  # as the English recogniser (speech/stt.py): short turns, a CPU
    cpu_threads: int = 0  # 0 = CTranslate2's default (all cores)


class MultilingualWhisper:
    """A multilingual Whisper (CTranslate2) that tells a turn's language and, when it is
    the one asked for, its words. Satisfies tutor/hear_again.py's `Ear`."""

    def __init__(self, model_dir: Path | str, device: str = "cpu", compute_type: str = "int8",
                 options: EarOptions | None = None) -> None:
        self.model_dir = Path(model_dir)
        self.device = device
        self.compute_type = compute_type
        self.options = options or EarOptions()
        self._model: Any = None
        self._lock = threading.Lock()  # one load, one decode at a time
        self.load_seconds = 0.0

    def _loaded(self) -> Any:
        """The WhisperModel, loaded on first use (under the lock)."""
        if self._model is None:
            from faster_whisper import WhisperModel

            started = time.perf_counter()
            try:
                self._model = WhisperModel(str(self.model_dir), device=self.device, compute_type=self.compute_type,
                                           cpu_threads=self.options.cpu_threads)
            except (RuntimeError, ValueError, OSError) as exc:
                if self.device != "cuda":
                    raise TutorError(f"cannot load the multilingual Whisper model from {self.model_dir}: {exc}") from None
                # A GPU that passed the probe can still lack the memory (as speech/stt.py does).
                log.warning("multilingual Whisper failed on CUDA (%s); using the CPU", exc)
                self.device, self.compute_type = "cpu", "int8"
                return self._loaded()
            if not self._model.model.is_multilingual:
                self._model = None
                raise TutorError(f"{self.model_dir} holds an English-only Whisper: it cannot tell languages apart")
            self.load_seconds = time.perf_counter() - started
            log.info("multilingual Whisper loaded in %.1f s (%s, %s)", self.load_seconds, self.device,
                     self.compute_type)
        return self._model

    def warm_up(self) -> None:
        with self._lock:
            self._loaded()

    def hear(self, clip: AudioClip, wanted: Mapping[str, float]) -> Hearing:
        """The language of `clip`, and its words when it is one of `wanted` (language ->
        the least probability to decode it at), in that language."""
        from faster_whisper.audio import pad_or_trim

        from tutor_app.speech.audiofile import to_mono_16k

        started = time.perf_counter()
        samples = to_mono_16k(clip)
        with self._lock:
            model = self._loaded()
            window = int(WINDOW_S * SAMPLE_RATE)
            features = pad_or_trim(model.feature_extractor(samples[:window]))
            encoded = model.encode(features)
            ranked = model.model.detect_language(encoded)[0]  # [("<|ko|>", p), ...], best first
            token, probability = ranked[0]
            found = token[2:-2]
            if found not in wanted or probability < wanted[found]:
                return Hearing(found, float(probability), seconds=time.perf_counter() - started)
            if len(samples) > window:
                words = self._transcribe(model, samples, found)
            else:
                words = self._decode(model, encoded, found)
        return Hearing(found, float(probability), *words, seconds=time.perf_counter() - started)

    def _decode(self, model: Any, encoded: Any, language: str) -> tuple[str, float, float, float]:
        """One window decoded in `language` from its encoder output (faster-whisper's
        decode at temperature 0, without timestamps)."""
        from faster_whisper.tokenizer import Tokenizer
        from faster_whisper.transcribe import get_compression_ratio, get_suppressed_tokens

        tokenizer = Tokenizer(model.hf_tokenizer, True, task="transcribe", language=language)
        prompt = [*tokenizer.sot_sequence, tokenizer.no_timestamps]
        result = model.model.generate(
            encoded, [prompt], beam_size=self.options.beam_size, max_length=len(prompt) + MAX_NEW_TOKENS,
            return_scores=True, return_no_speech_prob=True, suppress_blank=True,
            suppress_tokens=list(get_suppressed_tokens(tokenizer, [-1])))[0]
        tokens = result.sequences_ids[0]
        # The score is the sum of log-probabilities over the length (length penalty 1):
        # the mean over the tokens and the end token, as faster-whisper reports it.
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        text = tokenizer.decode(tokens).strip()
        return text, float(avg_logprob), float(result.no_speech_prob), get_compression_ratio(text) if text else 0.0

    def _transcribe(self, model: Any, samples: NDArray[np.float32], language: str) -> tuple[str, float, float, float]:
        """A turn longer than one window: each piece of `windows` encoded and decoded alone.

        Not faster-whisper's `transcribe`: without timestamps it decodes whole 30 s windows,
        and on one of dense speech Whisper sometimes skips a sentence or two (the same turn
        came back whole in one run and with two sentences gone in another, on another CPU).
        A piece of at most 20 s, cut at its quietest moment, is decoded whole."""
        from faster_whisper.audio import pad_or_trim
        from faster_whisper.transcribe import get_compression_ratio

        parts: list[tuple[str, float, float, float]] = []
        for begin, end in windows(samples):
            encoded = model.encode(pad_or_trim(model.feature_extractor(samples[begin:end])))
            text, avg_logprob, no_speech, _ = self._decode(model, encoded, language)
            parts.append((text, avg_logprob, no_speech, float(end - begin)))
        spoken = [p for p in parts if p[0]]
        if not spoken:
            return "", 0.0, 1.0, 0.0
        total = sum(p[3] for p in spoken)
        text = " ".join(p[0] for p in spoken)
        return (text, sum(p[1] * p[3] for p in spoken) / total, sum(p[2] * p[3] for p in spoken) / total,
                get_compression_ratio(text))


def windows(samples: NDArray[np.float32], longest_s: float = 20.0, shortest_s: float = 10.0,
            frame_s: float = 0.1) -> list[tuple[int, int]]:
    """`samples` cut into pieces of at most `longest_s`, each cut at the quietest
    `frame_s` frame (lowest RMS) between `shortest_s` and `longest_s` into its piece, so a
    cut falls in a pause between words, not through one."""
    longest, shortest, frame = (int(x * SAMPLE_RATE) for x in (longest_s, shortest_s, frame_s))
    pieces: list[tuple[int, int]] = []
    begin = 0
    while len(samples) - begin > longest:
        region = samples[begin + shortest:begin + longest]
        count = len(region) // frame
        energy = np.sqrt(np.mean(np.square(region[:count * frame].reshape(count, frame)), axis=1))
        cut = begin + shortest + int(np.argmin(energy)) * frame + frame // 2
        pieces.append((begin, cut))
        begin = cut
    pieces.append((begin, len(samples)))
    return pieces


_SHARED: dict[tuple[str, str, str], MultilingualWhisper] = {}
_SHARED_LOCK = threading.Lock()


def shared(model_dir: Path, device: str = "cpu", compute_type: str = "int8") -> MultilingualWhisper:
    """The one instance per model folder and device in this process (it loads on first use)."""
    key = (str(model_dir), device, compute_type)
    with _SHARED_LOCK:
        ear = _SHARED.get(key)
        if ear is None:
            ear = _SHARED[key] = MultilingualWhisper(model_dir, device, compute_type)
        return ear


def installed_ear(settings: Settings, registry: ModelRegistry | None = None) -> MultilingualWhisper | None:
    """The multilingual model when it is installed and whole (checksums checked, remembered
    between starts), else None: the learner did not ask for it. Cheap: nothing loads here."""
    from tutor_app.errors import ModelMissingError

    if registry is None:
        from tutor_app.paths import bundled_models_dir
        from tutor_app.registry.manifest import ModelRegistry

        paths = settings.paths
        registry = ModelRegistry.load(paths.models_dir, bundled_dir=bundled_models_dir(),
                                      cache_dir=paths.cache_dir / "models")
    try:
        if not registry.status(registry.get(MODEL), verify=False).usable:
            return None
        folder = registry.path(MODEL)  # verified: a damaged install is not used
    except ModelMissingError as exc:  # damaged: said once per turn it was needed for
        log.warning("the multilingual Whisper model cannot be used: %s", exc)
        return None
    except TutorError:  # not in this manifest (an older models.toml)
        return None
    return shared(folder, *_device(settings.speech.stt_device, settings.speech.stt_compute_type))


@functools.lru_cache(maxsize=4)
def _device(device: str, compute_type: str) -> tuple[str, str]:
    """The English recogniser's device choice (speech/devices.py), probed once."""
    from tutor_app.speech.devices import select_compute

    choice = select_compute(device, compute_type)
    return choice.device, choice.compute_type
