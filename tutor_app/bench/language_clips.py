"""Test clips for the "not English" gate (tutor/heard.py), made on this machine.

No Korean recordings are openly available here, so the clips are synthesised: espeak-ng
speaks Korean, Japanese and Chinese text in those languages' voices (what the gate must
reject), and English text in those same voices (a strongly accented learner: what it must
pass; espeak-ng's Japanese voice spells English words letter by letter, so it is not
used for English), at several speeds and pitches, some with noise added. Piper's English voice at
other rates adds a natural-sounding learner. Made into a temporary folder when asked for,
never committed. The shared recorded clips (LibriSpeech, JFK, LibriVox) come on top in
the bench and the tests.
"""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tutor_app.core.types import AudioClip
from tutor_app.speech.audiofile import SAMPLE_RATE, load_audio

# What a beginner says in a call (English), and what they might say instead (not English).
ENGLISH = (
    "How do you say this in English?",
    "I went to the market with my mother yesterday.",
    "Can you speak more slowly, please?",
    "My job is very busy these days, so I am tired.",
    "I want to practice for my job interview next week.",
    "What does that word mean?",
    "I like to watch movies on the weekend.",
    "Sorry, I don't understand. Can you say it again?",
    "Hello!",
    "Yes.",
    "No, thank you.",
)
KOREAN = (
    "이거 영어로 뭐라고 해요?",
    "출장은 영어로 뭐예요?",
    "천천히 말해 주세요.",
    "다시 한 번 말해 주세요.",
    "잘 모르겠어요.",
    "어제 엄마랑 시장에 갔어요.",
    "요즘 회사 일이 너무 바빠서 피곤해요.",
    "다음 주에 면접이 있어서 연습하고 싶어요.",
)
JAPANESE = (
    "これは英語で何と言いますか?",
    "もう少しゆっくり話してください。",
    "昨日、母と一緒に市場へ行きました。",
    "すみません、よくわかりません。",
)
CHINESE = (
    "这个用英语怎么说?",
    "请说得慢一点。",
    "我昨天和妈妈一起去了市场。",
    "对不起,我听不懂。",
)
# espeak-ng delivery variations: (words per minute, pitch 0-99)
DELIVERIES = ((150, 50), (120, 35), (175, 65))


@dataclass(frozen=True)
class LangClip:
    name: str
    source: str  # what the bench groups by: "espeak ko (Korean)", "espeak ko (English)", ...
    english: bool  # True: it must pass; False: it must be rejected
    clip: AudioClip


def espeak_available() -> bool:
    return shutil.which("espeak-ng") is not None


def espeak(text: str, voice: str, folder: Path, name: str, speed: int = 150, pitch: int = 50) -> AudioClip:
    path = folder / f"{name}.wav"
    subprocess.run(["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "-w", str(path), text],
                   check=True, capture_output=True, timeout=60)
    return load_audio(path)


def with_noise(clip: AudioClip, snr_db: float, seed: int) -> AudioClip:
    """White noise at `snr_db` below the clip's speech level (deterministic per seed)."""
    samples = np.asarray(clip.samples, dtype=np.float32)
    power = float(np.mean(samples ** 2)) or 1e-8
    noise = np.random.default_rng(seed).standard_normal(len(samples)).astype(np.float32)
    noise *= np.sqrt(power / 10 ** (snr_db / 10))
    return AudioClip(np.clip(samples + noise, -1.0, 1.0).astype(np.float32), clip.sample_rate)


def padded(clip: AudioClip) -> AudioClip:
    """Half a second of quiet either side, as a turn cut by the VAD would have."""
    samples = np.asarray(load_16k(clip), dtype=np.float32)
    pad = np.zeros(SAMPLE_RATE // 2, dtype=np.float32)
    return AudioClip(np.concatenate([pad, samples, pad]), SAMPLE_RATE)


def load_16k(clip: AudioClip) -> np.ndarray:
    from tutor_app.speech.audiofile import to_mono_16k

    return to_mono_16k(clip)


def espeak_clips(folder: Path | None = None, quick: bool = False) -> list[LangClip]:
    """Korean, Japanese, Chinese (reject) and English in those voices and en-us (pass).
    `quick`: one delivery per sentence, no noise (tests)."""
    folder = folder or Path(tempfile.mkdtemp(prefix="tutor-lang-"))
    deliveries = DELIVERIES[:1] if quick else DELIVERIES
    out: list[LangClip] = []
    plan: list[tuple[str, str, tuple[str, ...], bool]] = [
        ("ko", "Korean", KOREAN, False), ("ja", "Japanese", JAPANESE, False), ("cmn", "Chinese", CHINESE, False),
        ("ko", "English", ENGLISH, True), ("cmn", "English", ENGLISH, True), ("en-us", "English", ENGLISH, True),
    ]
    for voice, language, texts, english in plan:
        for i, text in enumerate(texts):
            for d, (speed, pitch) in enumerate(deliveries):
                name = f"espeak-{voice}-{language[:2].lower()}-{i}-{d}"
                clip = padded(espeak(text, voice, folder, name, speed, pitch))
                source = f"espeak {voice} ({language})"
                out.append(LangClip(name, source, english, clip))
                if not quick and d == 0:
                    out.append(LangClip(name + "-noise", source + " +noise", english, with_noise(clip, 15, i)))
    return out


def piper_clips(synthesize: Callable[[str, float], np.ndarray], rate: int) -> list[LangClip]:
    """English from the app's Piper voice at 0.8x and 1.25x speed, plus a noisy copy."""
    out = []
    for i, text in enumerate(ENGLISH):
        for speed in (0.8, 1.25):
            audio = AudioClip(np.asarray(synthesize(text, speed), dtype=np.float32), rate)
            clip = padded(audio)
            out.append(LangClip(f"piper-{i}-{speed}", "piper joe (English)", True, clip))
            if speed == 0.8:
                out.append(LangClip(f"piper-{i}-noise", "piper joe (English) +noise", True, with_noise(clip, 10, i)))
    return out


def shared_clips(data_dir: Path) -> list[LangClip]:
    """The shared recorded English clips (speech/manifest.tsv)."""
    import csv

    with (data_dir / "speech" / "manifest.tsv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle, delimiter="\t"))
    return [LangClip(row["file"], "shared recordings (English)", True,
                     load_audio(data_dir / "speech" / row["file"])) for row in rows]
