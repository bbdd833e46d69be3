"""Text to speech with Piper, behind `TextToSpeech`: float32 chunks, sentence by sentence.

Text is normalised first (markup, emoji, numbers: see text_normalize.py), then Piper
splits it into sentences (espeak-ng's own sentence ends) and each sentence is yielded as
soon as it is synthesised, so playback starts while the rest is still being made.

A sentence comes in two chunks when it is longer than ~0.55 s: its first 0.37 s, then the
rest. The voice's graph is split at its decoder (speech/vits_split.py): the text side runs
once, the decoder runs on the first 32 latent frames (+16 of context) and then on the rest,
and the parts join sample for sample as the whole decode would. A 1.9 s sentence's first
audio is ready after ~45 ms instead of ~80 (2 cores; 100-140 in a call). A voice whose
graph cannot be split runs whole, one chunk per sentence.

Level: Piper peak-normalised each sentence, which needs the whole sentence before its first
sample. Here a sentence's gain is `volume` over the larger of its first 0.37 s's peak and
the voice's typical sentence peak (measured once per voice on fixed lines), and peaks
above `volume` are rounded off softly (`soft_limit`), never clipped.

`deterministic=True` zeroes Piper's two noise scales: the VITS model otherwise samples
random noise on every call (ONNX Runtime's random ops are not seedable from Python), so
the same text would give slightly different audio and length each time.

The speaking rate (`set_rate`, a multiplier of the voice's own speed; speaking_rate.py) is
read before each sentence, so a change made while a reply is being spoken takes effect
from its next sentence. Piper's length_scale is not that multiplier: phoneme durations are
whole frames, so near 1.0 it hardly changes the speech time (length_scale 1.1 made it only
2.7 % longer). `length_scale_for` inverts a measured curve so that rate 0.8 really takes
1/0.8 of the time.
"""
from __future__ import annotations

import json
import logging
import os
import re
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from tutor_app.errors import TutorError
from tutor_app.speech.text_normalize import normalize_for_speech

if TYPE_CHECKING:
    from piper import SynthesisConfig

    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.settings import Settings

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class TtsOptions:
    length_scale: float | None = None  # None = the voice's own; > 1 speaks slower (see also set_rate)
    deterministic: bool = False
    volume: float = 0.9  # a sentence's level: its first peak (or the voice's typical one) is brought here
    # Fast start: a long first sentence is spoken as two chunks, split at a phrase break
    # (comma, or before "and", "about", ...), so the first audio is ready in about half
    # the time. Off by default: it costs a little prosody, and it only pays on the first
    # sentence of a reply (`synthesize(text, fast_start=True)` asks for it per call).
    fast_start: bool = False
    fast_start_words: int = 8  # longest first phrase; sentences this short are not split
    # A sentence's first chunk, in the decoder's frames (hop_length samples each: 256 at
    # 22.05 kHz, 0.37 s); 0: every sentence in one chunk. The context on each side of a cut:
    # 16 frames gave the whole decode's samples (max difference < 5e-5; 8: 3e-3).
    first_part_frames: int = 32
    context_frames: int = 16


# Voiced time of six sentences (joe-medium, noise off) relative to length_scale 1.0.
_LENGTH_SCALES = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.8, 2.0, 2.1)
_SPEECH_TIME = (0.641, 0.678, 0.758, 0.889, 0.963, 1.0, 1.027, 1.087, 1.164, 1.252, 1.348, 1.44, 1.59,
                1.724, 1.793)


def length_scale_for(rate: float) -> float:
    """Piper's length_scale (relative to the voice's own) for speaking `rate` x as fast;
    beyond about 0.56-1.55 the voice cannot follow and the ends of the curve are used."""
    return float(np.interp(1.0 / rate, _SPEECH_TIME, _LENGTH_SCALES))


# A sentence's gain is read from this many of its first decoder frames (0.37 s at 22.05 kHz).
LEVEL_FRAMES = 32
# Fixed lines whose median peak is the voice's typical sentence peak (see the module).
REFERENCE_LINES = ("That sounds really interesting.", "Could you tell me a little more about it?",
                   "How did the job interview go yesterday?")


class PiperTts:
    """Satisfies `TextToSpeech`."""

    def __init__(self, model_path: Path | str, config_path: Path | str | None = None,
                 options: TtsOptions | None = None) -> None:
        self.options = options or TtsOptions()
        model_path = Path(model_path)
        config_path = Path(config_path) if config_path else Path(f"{model_path}.json")
        started = time.perf_counter()
        try:
            self._voice, self._decoder = _load_voice(model_path, config_path, self.options.first_part_frames > 0)
        except Exception as exc:  # noqa: BLE001 - onnxruntime's errors derive from Exception alone
            raise TutorError(f"cannot load the Piper voice {model_path.name}: {exc}") from None
        self.load_seconds = time.perf_counter() - started
        self._typical_peak: float | None = None  # measured on first use (`typical_peak`)
        self._lock = threading.Lock()  # espeak-ng is process-global state
        self._rate = 1.0  # a float, swapped whole: safe to set from any thread

    @property
    def rate(self) -> float:
        return self._rate

    def set_rate(self, rate: float) -> None:
        """Speak at `rate` x the voice's speed (1.0 = as trained, 0.8 slower) from the next
        sentence on, including the next sentence of a reply already being synthesised."""
        rate = float(rate)
        if not 0.25 <= rate <= 4.0:  # far outside any sane rate: a bug upstream, not a wish
            raise ValueError(f"speaking rate {rate} out of range")
        self._rate = rate

    @property
    def sample_rate(self) -> int:
        return int(self._voice.config.sample_rate)

    @property
    def split(self) -> bool:
        """Is a sentence's first part decoded alone (the voice's graph split)?"""
        return self._decoder is not None

    @property
    def typical_peak(self) -> float:
        """The voice's median raw sentence peak on REFERENCE_LINES (noise off, rate 1)."""
        if self._typical_peak is None:
            from piper import SynthesisConfig

            config = SynthesisConfig(noise_scale=0.0, noise_w_scale=0.0)
            peaks = [_peak(self._raw(phonemes, config)) for line in REFERENCE_LINES for phonemes in self._phonemize(line)]
            self._typical_peak = float(np.median(peaks)) if peaks and max(peaks) > LEAD_FLOOR else 1.0
        return self._typical_peak

    def synthesize(self, text: str, fast_start: bool | None = None) -> Iterator[NDArray[np.float32]]:
        """Yield float32 mono chunks, a sentence at a time (a longer one as its first 0.37 s,
        then the rest: see the module); nothing for unspeakable text.

        `fast_start` (default: options.fast_start) splits a long first sentence into two
        chunks; the engine asks for it on the first sentence of a reply only.
        """
        spoken = normalize_for_speech(text)
        if not spoken:
            return
        parts = [spoken]
        if self.options.fast_start if fast_start is None else fast_start:
            parts = list(split_first_phrase(spoken, self.options.fast_start_words) or parts)
        for part in parts:  # phonemize lazily: the first part plays while the rest is made
            for phonemes in self._phonemize(part):
                for chunk in self._audio(phonemes, self._config()):  # per sentence: picks up set_rate
                    if chunk.size:
                        yield chunk

    def synthesize_all(self, text: str) -> NDArray[np.float32]:
        """The whole text as one array (for files)."""
        chunks = list(self.synthesize(text))
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)

    def warm_up(self) -> None:
        """Load espeak-ng and run the model once so the first reply starts quickly."""
        for _ in self.synthesize("Hello."):
            pass

    # -- internals -----------------------------------------------------------------------
    def _config(self) -> SynthesisConfig:
        from piper import SynthesisConfig

        o = self.options
        noise = 0.0 if o.deterministic else None
        base = o.length_scale if o.length_scale is not None else float(self._voice.config.length_scale)
        return SynthesisConfig(length_scale=base * length_scale_for(self._rate), noise_scale=noise, noise_w_scale=noise,
                               normalize_audio=False, volume=o.volume)  # levelled here (see the module)

    def _phonemize(self, text: str) -> list[list[str]]:
        with self._lock:
            return [p for p in self._voice.phonemize(text) if p]

    def _audio(self, phonemes: list[str], config: SynthesisConfig) -> Iterator[NDArray[np.float32]]:
        """One sentence as one or two chunks, at one gain (see the module)."""
        gain = 0.0
        for part in self._parts(phonemes, config):
            if not gain:  # from the sentence's first LEVEL_FRAMES, split or not: the same level
                head = part[:LEVEL_FRAMES * int(self._voice.config.hop_length)]
                gain = config.volume / max(_peak(head), self.typical_peak)
            yield soft_limit(part * gain, config.volume)

    def _parts(self, phonemes: list[str], config: SynthesisConfig) -> Iterator[NDArray[np.float32]]:
        """The sentence's raw audio: its first `first_part_frames` decoded alone, then the rest."""
        if self._decoder is None:
            yield self._raw(phonemes, config)
            return
        latent = self._latent(phonemes, config)
        frames, first, context = latent.shape[2], self.options.first_part_frames, self.options.context_frames
        hop = int(self._voice.config.hop_length)
        if frames <= first + context:
            yield self._decode(latent)
            return
        yield self._decode(latent[:, :, :first + context])[:first * hop]
        start = max(0, first - context)
        yield self._decode(latent[:, :, start:])[(first - start) * hop:]

    def _raw(self, phonemes: list[str], config: SynthesisConfig) -> NDArray[np.float32]:
        """The whole sentence in one run, not levelled."""
        if self._decoder is None:
            ids = self._voice.phonemes_to_ids(phonemes)
            return np.asarray(self._voice.phoneme_ids_to_audio(ids, config), dtype=np.float32).reshape(-1)
        return self._decode(self._latent(phonemes, config))

    def _latent(self, phonemes: list[str], config: SynthesisConfig) -> NDArray[np.float32]:
        """The text side of the split graph: the decoder's input frames, [1, channels, frames]."""
        voice = self._voice
        c = voice.config
        ids = np.array([voice.phonemes_to_ids(phonemes)], dtype=np.int64)
        scales = np.array([c.noise_scale if config.noise_scale is None else config.noise_scale,
                           c.length_scale if config.length_scale is None else config.length_scale,
                           c.noise_w_scale if config.noise_w_scale is None else config.noise_w_scale], dtype=np.float32)
        feed = {"input": ids, "input_lengths": np.array([ids.shape[1]], dtype=np.int64), "scales": scales}
        if c.num_speakers > 1:
            speaker = config.speaker_id if config.speaker_id is not None else c.default_speaker_id
            feed["sid"] = np.array([speaker], dtype=np.int64)
        return np.asarray(voice.session.run(None, feed)[0], dtype=np.float32)

    def _decode(self, latent: NDArray[np.float32]) -> NDArray[np.float32]:
        assert self._decoder is not None
        session, name = self._decoder
        out = session.run(None, {name: np.ascontiguousarray(latent)})[0]
        return np.asarray(out, dtype=np.float32).reshape(-1)


def _load_voice(model_path: Path, config_path: Path, split: bool) -> tuple[Any, tuple[Any, str] | None]:
    """(the PiperVoice, (the decoder's session, its input's name) or None). Split: the
    voice's session is the graph's text side (speech/vits_split.py); else Piper's own."""
    from piper import PiperConfig, PiperVoice

    if split:
        from tutor_app.core.onnx import import_onnxruntime
        from tutor_app.speech.vits_split import split_at_decoder

        parts = split_at_decoder(model_path.read_bytes())
        if parts is not None:
            ort = import_onnxruntime()
            with open(config_path, encoding="utf-8") as fh:
                config = PiperConfig.from_dict(json.load(fh))
            # The machine's cores (ORT's default), but idle threads sleep: each session has
            # its own pool, and the text side's threads spinning after their run took the
            # cores from the decoder's (its first part: 31-35 ms instead of 15-17; the
            # first audio 63-78 ms instead of 50-53, measured back to back on 2 cores).
            options = ort.SessionOptions()
            options.add_session_config_entry("session.intra_op.allow_spinning", "0")
            try:
                front, decoder = (ort.InferenceSession(model, sess_options=options, providers=["CPUExecutionProvider"])
                                  for model in (parts.front, parts.decoder))
                return PiperVoice(session=front, config=config), (decoder, parts.latent)
            except Exception as exc:  # noqa: BLE001 - onnxruntime's errors derive from Exception alone
                log.warning("the split voice %s did not load (%s): each sentence is made whole",
                            model_path.name, type(exc).__name__)
        else:
            log.info("the voice %s could not be split at its decoder: each sentence is made whole", model_path.name)
    return PiperVoice.load(model_path, config_path=config_path), None


def _peak(samples: NDArray[np.float32]) -> float:
    return float(np.max(np.abs(samples))) if samples.size else 0.0


def soft_limit(samples: NDArray[np.float32], knee: float) -> NDArray[np.float32]:
    """`samples` unchanged up to +-`knee`; beyond it rounded off towards +-1, never past."""
    out = np.asarray(samples, dtype=np.float32).copy()
    over = np.abs(out) > knee
    if knee < 1.0 and over.any():
        room = 1.0 - knee
        out[over] = np.sign(out[over]) * (knee + room * np.tanh((np.abs(out[over]) - knee) / room))
    return np.clip(out, -1.0, 1.0)


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


# Piper starts each sentence with 20-50 ms of digital silence (joe-medium: "That sounds
# ..." 45 ms, "Could you ..." 40 ms; none before an "s"). Between sentences it is part of
# the pause; before a reply's first sentence it only delays the first sound the learner hears.
LEAD_FLOOR = 1e-3  # under -60 dBFS: nothing audible
LEAD_KEEP_MS = 5.0  # kept before the first audible sample: the onset's own rise


def without_lead(samples: NDArray[np.float32], rate: int) -> NDArray[np.float32]:
    """`samples` from `LEAD_KEEP_MS` before their first audible sample on (unchanged when
    nothing in them is audible)."""
    audible = np.flatnonzero(np.abs(samples) > LEAD_FLOOR)
    if not audible.size:
        return samples
    start = int(audible[0]) - int(rate * LEAD_KEEP_MS / 1000)
    return samples[start:] if start > 0 else samples


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


def load_tts(settings: Settings, registry: ModelRegistry, options: TtsOptions | None = None) -> PiperTts:
    """The app's voice: settings.speech.tts_voice from the registry, at the learner's rate
    (speech.speaking_rate, or by level)."""
    name = settings.speech.tts_voice
    folder = Path(registry.path(name))
    models = sorted(folder.glob("*.onnx"))
    if not models:
        raise TutorError(f"voice '{name}' has no .onnx file in {folder}: "
                         f"run `tutor-app models install {name}`")
    from tutor_app.speech.speaking_rate import effective_rate

    model = models[0]
    tts = PiperTts(model, Path(f"{model}.json"), options)
    tts.set_rate(effective_rate(settings.tutor.level, settings.speech.speaking_rate))
    return tts
