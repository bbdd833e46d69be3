"""Speaking and splicing for the pause clips (pause_clips.py): a sentence spoken once and
cut between two words, so the first half keeps the intonation of a sentence that goes on.

- Piper: its own phoneme alignments (the model is patched in memory to output them;
  needs the onnx package) give the word gap exactly.
- espeak-ng: an SSML <break/> at the boundary keeps one clause's intonation; its
  silence marks the cut.
- Recordings: Whisper tiny's word times are coarse (ends are often late by a phoneme),
  so they only bound the search; the quiet points there are tried, quietest first, and
  the first cut before which Whisper hears the first half is kept.

Plus the small signal helpers the clips need (trim, voiced bounds, fades).
"""
from __future__ import annotations

import io
import re
import subprocess
from pathlib import Path

import numpy as np

from tutor_app.core.types import SAMPLE_RATE
from tutor_app.errors import TutorError


class Voices:
    """Voice names: "piper:joe@<length scale>", "espeak:<voice>@<words per minute>"."""

    def __init__(self, registry) -> None:
        self.registry = registry
        self._tts = None
        self._aligned = None
        self._stt = None

    def speak(self, voice: str, text: str) -> np.ndarray:
        """`text` spoken by `voice`: mono float32 at 16 kHz."""
        family, name, rate = _parse(voice)
        if family == "piper":
            return self._piper(text, float(rate))
        return espeak(text, name, int(rate))

    def speak_split(self, voice: str, first: str, second: str) -> tuple[np.ndarray, np.ndarray] | None:
        """The sentence `first second` spoken once, cut between them (None: no clean cut)."""
        family, name, rate = _parse(voice)
        if family == "piper":
            return self._piper_split(first, second, float(rate))
        audio = espeak(f'<speak>{first} <break time="1000ms"/> {second}</speak>', name, int(rate), ssml=True)
        gap = longest_silence(audio)
        if gap is None or gap[1] - gap[0] < 0.5 * SAMPLE_RATE:
            return None
        return audio[:gap[0]], audio[gap[1]:]

    # -- Piper ------------------------------------------------------------------------
    def _piper(self, text: str, length_scale: float) -> np.ndarray:
        from dataclasses import replace

        from tutor_app.core.types import AudioClip
        from tutor_app.speech.audiofile import to_mono_16k
        from tutor_app.speech.tts import PiperTts, TtsOptions

        if self._tts is None:  # deterministic: Piper's noise is not seedable
            self._tts = PiperTts(self._piper_model(), options=TtsOptions(deterministic=True))
        self._tts.options = replace(self._tts.options, length_scale=length_scale)
        return to_mono_16k(AudioClip(self._tts.synthesize_all(text), self._tts.sample_rate))

    def _piper_split(self, first: str, second: str, length_scale: float):
        from piper import PiperVoice, SynthesisConfig

        from tutor_app.core.types import AudioClip
        from tutor_app.speech.audiofile import to_mono_16k

        if self._aligned is None:
            self._aligned = PiperVoice.load(self._piper_model(), include_alignments=True)
        config = SynthesisConfig(length_scale=length_scale, noise_scale=0.0, noise_w_scale=0.0,
                                 normalize_audio=True, volume=0.9)
        chunks = list(self._aligned.synthesize(f"{first} {second}", config, include_alignments=True))
        if len(chunks) != 1 or not chunks[0].phoneme_alignments:
            return None
        chunk = chunks[0]
        # The first half ends at the k-th word separator (" ") among the phonemes, k
        # counted on the half's own phonemes (espeak-ng joins some words: "I am" -> aɪɐm).
        k = sum(len("".join(p).split()) for p in self._aligned.phonemize(first))
        spaces, position, cut = 0, 0, None
        for item in chunk.phoneme_alignments:
            if item.phoneme == " ":
                spaces += 1
                if spaces == k:
                    cut = position + int(item.num_samples) // 2
                    break
            position += int(item.num_samples)
        total = sum(int(item.num_samples) for item in chunk.phoneme_alignments)
        if cut is None or total <= 0:
            return None
        audio = to_mono_16k(AudioClip(chunk.audio_float_array, chunk.sample_rate))
        at = int(cut * len(audio) / total)
        at = (quiet_points(audio, at / SAMPLE_RATE - 0.03, at / SAMPLE_RATE + 0.03) or [at])[0]
        return audio[:at], audio[at:]

    def _piper_model(self) -> Path:
        folder = Path(self.registry.path(self.registry.default("tts").name))
        return sorted(folder.glob("*.onnx"))[0]

    # -- recordings: Whisper's word times bound the search -------------------------------
    def find_cut(self, audio: np.ndarray, first: str) -> int | None:
        """Sample index of the word boundary after `first` in a recording, or None: the
        quiet points from the end of the word before its last word to the end of the
        next word, quietest first; kept when Whisper hears `first` before the cut (same
        last two words, about as many: "mister" may come back as "Mr.")."""
        words = self._words(audio)
        want = norm_words(first)
        flat = [(norm_words(w.word) or [""])[0] for w in words]
        k = len(want)
        if k >= len(flat) or flat[k - 1] != want[-1]:
            matches = [i for i, w in enumerate(flat[:-1]) if w == want[-1]]
            if not matches:
                return None
            k = min(matches, key=lambda i: abs(i - (k - 1))) + 1
        start = words[k - 2].end if k >= 2 else words[0].start
        for cut in quiet_points(audio, start, words[k].end)[:8]:
            heard = norm_words(self._text(audio[:cut]))
            if heard[-2:] == want[-2:] and abs(len(heard) - len(want)) <= 1:
                return cut
        return None

    def _whisper(self):
        if self._stt is None:
            from tutor_app.speech.stt import SttOptions, WhisperStt
            from tutor_app.speech.vad import MODEL_FILE, SileroVad

            vad = SileroVad(Path(self.registry.path("silero-vad")) / MODEL_FILE)
            self._stt = WhisperStt(self.registry.path(self.registry.default("stt").name), vad,
                                   options=SttOptions(word_timestamps=True, beam_size=1))
        return self._stt

    def _words(self, audio: np.ndarray):
        from tutor_app.core.types import AudioClip

        transcript = self._whisper().transcribe(AudioClip(audio, SAMPLE_RATE))
        return [w for seg in transcript.segments for w in seg.words]

    def _text(self, audio: np.ndarray) -> str:
        from tutor_app.core.types import AudioClip

        return self._whisper().transcribe(AudioClip(audio, SAMPLE_RATE)).text


def _parse(voice: str) -> tuple[str, str, str]:
    family, _, rest = voice.partition(":")
    name, _, rate = rest.partition("@")
    if family not in ("piper", "espeak") or not rate:
        raise TutorError(f"unknown voice {voice!r} (piper:joe@1.0 or espeak:en-us@150)")
    return family, name, rate


def espeak(text: str, voice: str, speed: int, ssml: bool = False) -> np.ndarray:
    """espeak-ng (the command) at 16 kHz, peak 0.9."""
    import soundfile as sf

    from tutor_app.core.types import AudioClip
    from tutor_app.speech.audiofile import to_mono_16k

    command = ["espeak-ng", "-v", voice, "-s", str(speed), *(["-m"] if ssml else []), "--stdout", text]
    try:
        wav = subprocess.run(command, check=True, capture_output=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise TutorError(f"espeak-ng failed for voice {voice}: {exc}") from None
    samples, rate = sf.read(io.BytesIO(wav), dtype="float32")
    samples = to_mono_16k(AudioClip(samples, rate))
    peak = float(np.max(np.abs(samples))) or 1.0
    return samples / peak * 0.9


def norm_words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9']+", text.lower().replace("favorite", "favourite"))


# -- signal helpers -----------------------------------------------------------------------

def _frame_rms(audio: np.ndarray, frame: int) -> np.ndarray:
    n = len(audio) // frame
    if n == 0:
        return np.zeros(0)
    return np.sqrt(np.mean(audio[: n * frame].reshape(n, frame).astype(np.float64) ** 2, axis=1))


def voiced_bounds(audio: np.ndarray, floor_db: float = -40.0) -> tuple[float, float]:
    """(first, last) voiced time in s: 10 ms frames within `floor_db` of the loudest."""
    rms = _frame_rms(audio, SAMPLE_RATE // 100)
    if rms.size == 0 or rms.max() <= 0:
        return 0.0, 0.0
    voiced = np.flatnonzero(rms >= rms.max() * 10 ** (floor_db / 20))
    return voiced[0] / 100, (voiced[-1] + 1) / 100


def trim(audio: np.ndarray, floor_db: float = -40.0, keep: float = 0.03) -> np.ndarray:
    """Drop leading/trailing silence, keeping `keep` s around the speech."""
    start, end = voiced_bounds(audio, floor_db)
    a = max(0, int((start - keep) * SAMPLE_RATE))
    b = min(len(audio), int((end + keep) * SAMPLE_RATE))
    return audio[a:b] if b > a else audio


def longest_silence(audio: np.ndarray, floor_db: float = -50.0) -> tuple[int, int] | None:
    """(start, end) samples of the longest run of 10 ms frames `floor_db` below the peak,
    inside the speech (not at its ends)."""
    frame = SAMPLE_RATE // 100
    rms = _frame_rms(audio, frame)
    if rms.size == 0 or rms.max() <= 0:
        return None
    quiet = rms < rms.max() * 10 ** (floor_db / 20)
    voiced = np.flatnonzero(~quiet)
    best, run_start = None, None
    for i in range(voiced[0], voiced[-1] + 1):
        if quiet[i] and run_start is None:
            run_start = i
        elif not quiet[i] and run_start is not None:
            if best is None or i - run_start > best[1] - best[0]:
                best = (run_start, i)
            run_start = None
    return None if best is None else (best[0] * frame, best[1] * frame)


def quiet_points(audio: np.ndarray, start_s: float, end_s: float) -> list[int]:
    """Sample indexes of the local minima of the 5 ms energy between two times, quietest
    first: the candidate word boundaries there."""
    frame = SAMPLE_RATE // 200
    a = max(0, int(start_s * SAMPLE_RATE))
    b = min(len(audio), max(a + 3 * frame, int(end_s * SAMPLE_RATE)))
    rms = _frame_rms(audio[a:b], frame)
    if rms.size < 3:
        return [a]
    smooth = np.convolve(rms, np.ones(3) / 3, mode="same")
    minima = [i for i in range(1, len(smooth) - 1) if smooth[i] <= smooth[i - 1] and smooth[i] <= smooth[i + 1]]
    minima.sort(key=lambda i: smooth[i])
    return [a + i * frame + frame // 2 for i in minima]


def faded(audio: np.ndarray, ms: float = 5.0) -> np.ndarray:
    """Short fades at both ends so the splice does not click."""
    n = min(len(audio) // 2, int(SAMPLE_RATE * ms / 1000))
    if n <= 0:
        return audio
    out = audio.astype(np.float32).copy()
    ramp = np.linspace(0.0, 1.0, n, dtype=np.float32)
    out[:n] *= ramp
    out[-n:] *= ramp[::-1]
    return out
