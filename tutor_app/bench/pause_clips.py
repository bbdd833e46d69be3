"""Pause clips: learner-style turns for the end-of-turn tests and `tutor-app bench turns`.

A *pause clip* is one sentence with a 0.6-2.0 s silence spliced in mid-sentence, where
the words before the silence are clearly unfinished ("Next month I am planning to ...
visit my aunt in Canada"): the tutor must wait. A *complete* clip is a short finished
sentence: the tutor should answer fast. Voices: Piper joe at three speaking rates,
espeak-ng voices (when espeak-ng is installed) and real recordings from shared/data
(LibriSpeech / LibriVox).

Two splice styles, recorded per clip:
- "boundary": the whole sentence is spoken once and cut at the word boundary (see
  splice.py: Piper's phoneme alignments, an espeak-ng SSML break, or for recordings a
  quiet point near Whisper's word times, checked by transcribing the first half; a
  recording with no clean cut is skipped), so the first half keeps the continuing
  intonation of a sentence that goes on.
- "halves": the two halves are spoken separately, so the first half ends with a falling
  tone, as TTS voices and many learners do ("... planning to.").

Every clip is 16 kHz mono WAV with 0.3 s of faint noise before, and 1.0 s after, the
speech. `manifest.json` in the folder lists them (see `PauseClip`). Deterministic: the
same seed gives the same files (Piper runs with its noise off; the noise is seeded).
"""
from __future__ import annotations

import json
import logging
import shutil
from dataclasses import asdict, dataclass, fields
from pathlib import Path

import numpy as np

from tutor_app.bench.splice import Voices, faded, trim, voiced_bounds
from tutor_app.core.types import SAMPLE_RATE
from tutor_app.errors import TutorError

log = logging.getLogger(__name__)

MANIFEST = "manifest.json"
VERSION = 1

# "first | second": the first half is clearly unfinished.
PAUSE_SENTENCES = (
    "Next month I am planning to | visit my aunt in Canada.",
    "I think the most important thing is | to be honest with people.",
    "Yesterday I went to the | market with my sister.",
    "My favourite food is | kimchi stew because it is spicy.",
    "I want to talk about | my job interview next week.",
    "When I was a child I lived in | a small town near the sea.",
    "I usually go to work by | subway in the morning.",
    "The reason I study English is | because I want to travel.",
    "Last weekend my friends and I | watched a movie together.",
    "I am not sure, but I think | it will rain tomorrow.",
    "In my free time I like | reading books and cooking.",
    "She told me that | she would call me later.",
    "I would really like to | improve my speaking skills.",
    "My company is going to | open a new office in Seoul.",
)
COMPLETE_SENTENCES = (
    "I live in Seoul.",
    "Yes, I did.",
    "I work as a nurse at a big hospital.",
    "My name is Minji.",
    "I went hiking with my friends last weekend.",
    "I am really looking forward to my trip.",
    "Could you speak a little more slowly?",
    "That sounds great.",
    "I had kimchi stew for lunch.",
    "What do you usually do on weekends?",
)
# Real speech (shared/data/speech): file, transcript split as "first | second" for a
# pause clip, or without "|" for a complete clip.
RECORDED = (
    ("librispeech_test-clean_1089-134686-0000.flac",
     "he hoped there would be stew for | dinner turnips and carrots and bruised potatoes and fat "
     "mutton pieces to be ladled out in thick peppered flour fattened sauce"),
    ("librispeech_test-clean_1089-134691-0001.flac",
     "for a full hour he had | paced up and down waiting but he could wait no longer"),
    ("pocketsphinx_librivox_sense_and_sensibility_01_austen_64kb-0870.wav",
     "and mister john dashwood had then leisure to consider how much there might be "
     "prudently in his | power to do for them"),
    ("pocketsphinx_librivox_sense_and_sensibility_01_austen_64kb-0890.wav",
     "unless to be rather cold hearted and rather selfish is to | be ill disposed"),
    ("pocketsphinx_goforward.wav", "go forward ten meters"),
    ("librispeech_test-clean_1089-134691-0001.flac",
     "for a full hour he had paced up and down waiting but he could wait no longer"),
    ("pocketsphinx_librivox_sense_and_sensibility_01_austen_64kb-0890.wav",
     "unless to be rather cold hearted and rather selfish is to be ill disposed"),
)
PIPER_RATES = (1.0, 1.25, 0.9)  # length scales: normal, a slow learner, a bit fast
ESPEAK_VOICES = (("en-us", 150), ("en-gb+f3", 140), ("en-gb-scotland+m3", 160), ("en-us+f4", 130))


@dataclass(frozen=True)
class PauseClip:
    id: str
    file: str  # WAV beside the manifest
    kind: str  # "pause" (mid-sentence silence) | "complete" (a finished short sentence)
    voice: str  # e.g. "piper:joe@1.25", "espeak:en-gb+f3@140", "recorded:librispeech"
    text: str  # the whole sentence
    first: str  # the words before the pause (the whole text for a complete clip)
    second: str  # the words after it ("" for a complete clip)
    splice: str  # "boundary" | "halves" | "none"
    pause_at: float | None  # s: where the spliced silence starts (None: no pause)
    pause_seconds: float  # length of the spliced silence (0 for a complete clip)
    speech_start: float  # s: first voiced sample
    speech_end: float  # s: last voiced sample (voice-to-voice times start here)
    duration: float

    @property
    def complete(self) -> bool:
        """Is the speech before the first silence a finished turn?"""
        return self.kind == "complete"


@dataclass(frozen=True)
class ClipOptions:
    seed: int = 12
    min_pause: float = 0.6
    max_pause: float = 2.0
    lead_seconds: float = 0.3
    tail_seconds: float = 1.0
    noise_rms: float = 3e-4  # a quiet room, not digital zero
    sources: tuple[str, ...] = ("piper", "espeak", "recorded")
    data_dir: Path | None = None  # shared/data (default: beside the checkout)
    limit: int = 0  # at most this many sentences of each list (0 = all; for quick tests)


def read_manifest(folder: Path | str) -> list[PauseClip]:
    """The clips listed in `folder`/manifest.json (TutorError when there is none)."""
    path = Path(folder) / MANIFEST
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TutorError(f"no pause-clip manifest at {path}: {exc}") from None
    names = {f.name for f in fields(PauseClip)}
    return [PauseClip(**{k: v for k, v in row.items() if k in names}) for row in data["clips"]]


def load_clip(folder: Path | str, clip: PauseClip) -> np.ndarray:
    import soundfile as sf

    samples, rate = sf.read(str(Path(folder) / clip.file), dtype="float32")
    if rate != SAMPLE_RATE:
        raise TutorError(f"{clip.file}: expected {SAMPLE_RATE} Hz, got {rate}")
    return samples


def ensure_pause_clips(folder: Path | str, registry, options: ClipOptions | None = None) -> list[PauseClip]:
    """The clips in `folder`, written first when missing or made with other options."""
    options = options or ClipOptions()
    path = Path(folder) / MANIFEST
    if path.is_file():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("version") == VERSION and data.get("options") == _options_record(options):
                return read_manifest(folder)
        except ValueError:
            pass
    return write_pause_clips(folder, registry, options)


def write_pause_clips(folder: Path | str, registry, options: ClipOptions | None = None) -> list[PauseClip]:
    """Write every clip and the manifest into `folder`; returns the manifest."""
    options = options or ClipOptions()
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    maker = _Maker(folder, registry, options)
    voices = maker.voices()
    rng = np.random.default_rng(options.seed)
    clips: list[PauseClip] = []
    for i, line in enumerate(_limited(PAUSE_SENTENCES, options)):
        first, second = (part.strip() for part in line.split("|"))
        voice = voices[i % len(voices)]
        mode = "halves" if i % 3 == 2 else "boundary"
        clip = maker.pause_clip(f"pause-{i:02d}", voice, first, second, mode, _pause(rng, options))
        if clip:
            clips.append(clip)
    for i, text in enumerate(_limited(COMPLETE_SENTENCES, options)):
        clips.append(maker.complete_clip(f"complete-{i:02d}", voices[(i + 1) % len(voices)], text))
    if "recorded" in options.sources:
        clips.extend(maker.recorded_clips(rng))
    record = {"version": VERSION, "options": _options_record(options), "clips": [asdict(c) for c in clips]}
    (folder / MANIFEST).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return clips


def _limited(items, options: ClipOptions):
    return items[: options.limit] if options.limit > 0 else items


def _pause(rng, options: ClipOptions) -> float:
    return round(float(rng.uniform(options.min_pause, options.max_pause)), 2)


def _options_record(options: ClipOptions) -> dict:
    return {"seed": options.seed, "min_pause": options.min_pause, "max_pause": options.max_pause,
            "lead_seconds": options.lead_seconds, "tail_seconds": options.tail_seconds,
            "noise_rms": options.noise_rms, "sources": list(options.sources), "limit": options.limit}


class _Maker:
    def __init__(self, folder: Path, registry, options: ClipOptions) -> None:
        self.folder = folder
        self.registry = registry
        self.options = options
        self.speech = Voices(registry)
        self._noise = np.random.default_rng(options.seed + 1)

    def voices(self) -> list[str]:
        out = []
        if "piper" in self.options.sources:
            out += [f"piper:joe@{rate}" for rate in PIPER_RATES]
        if "espeak" in self.options.sources:
            if shutil.which("espeak-ng"):
                out += [f"espeak:{name}@{speed}" for name, speed in ESPEAK_VOICES]
            else:
                log.warning("espeak-ng is not installed: pause clips use Piper only")
        if not out:
            raise TutorError("pause clips need Piper or espeak-ng voices")
        # Interleave so each voice family gets pause and complete clips.
        piper = [v for v in out if v.startswith("piper")]
        espeak = [v for v in out if v.startswith("espeak")]
        mixed = []
        for i in range(max(len(piper), len(espeak))):
            mixed += piper[i:i + 1] + espeak[i:i + 1]
        return mixed

    # -- clips --------------------------------------------------------------------------
    def pause_clip(self, clip_id: str, voice: str, first: str, second: str, mode: str,
                   pause: float) -> PauseClip | None:
        if mode == "boundary":
            halves = self.speech.speak_split(voice, first, second)
            if halves is not None:
                return self.save(clip_id, voice, first, second, "boundary", *halves, pause)
            log.info("%s: no word boundary found; speaking the halves separately", clip_id)
        return self.save(clip_id, voice, first, second, "halves",
                         self.speech.speak(voice, first), self.speech.speak(voice, second), pause)

    def complete_clip(self, clip_id: str, voice: str, text: str) -> PauseClip:
        return self.save(clip_id, voice, text, "", "none", self.speech.speak(voice, text), None, 0.0)

    def recorded_clips(self, rng) -> list[PauseClip]:
        from tutor_app.bench.speech import default_data_dir
        from tutor_app.speech.audiofile import load_audio

        folder = Path(self.options.data_dir or default_data_dir()) / "speech"
        if not folder.is_dir():
            raise TutorError(f"pause clips: no recorded speech at {folder}")
        clips = []
        for i, (name, line) in enumerate(_limited(RECORDED, self.options)):
            audio = trim(load_audio(folder / name).samples)
            voice = "recorded:" + ("librispeech" if "librispeech" in name else "librivox"
                                   if "librivox" in name else "pocketsphinx")
            if "|" not in line:
                clips.append(self.save(f"recorded-complete-{i:02d}", voice, line, "", "none", audio, None, 0.0))
                continue
            first, second = (part.strip() for part in line.split("|"))
            cut = self.speech.find_cut(audio, first)
            if cut is None:
                log.warning("%s: no clean word boundary after %r; clip skipped", name, first.split()[-1])
                continue
            clips.append(self.save(f"recorded-pause-{i:02d}", voice, first, second, "boundary",
                                   audio[:cut], audio[cut:], _pause(rng, self.options)))
        return clips

    def save(self, clip_id, voice, first, second, splice, head, tail, pause) -> PauseClip:
        o = self.options
        head = trim(head)
        parts = [self.noise(o.lead_seconds), faded(head)]
        pause_at = None
        if tail is not None:
            pause_at = round(o.lead_seconds + len(head) / SAMPLE_RATE, 3)
            parts += [self.noise(pause), faded(trim(tail))]
        parts.append(self.noise(o.tail_seconds))
        audio = np.concatenate(parts).astype(np.float32)
        start, end = voiced_bounds(audio)
        from tutor_app.speech.tts import write_wav

        write_wav(self.folder / f"{clip_id}.wav", audio, SAMPLE_RATE)
        text = f"{first} {second}".strip()
        return PauseClip(clip_id, f"{clip_id}.wav", "pause" if tail is not None else "complete", voice,
                         text, first, second, splice, pause_at, float(pause), round(start, 3),
                         round(end, 3), round(len(audio) / SAMPLE_RATE, 3))

    def noise(self, seconds: float) -> np.ndarray:
        n = int(round(seconds * SAMPLE_RATE))
        return self._noise.standard_normal(n).astype(np.float32) * self.options.noise_rms
