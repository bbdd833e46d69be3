"""`tutor-app bench names`: names heard right with and without the profile's bias list.

A name-rich learner profile in a real memory store in a temporary folder gives the bias
list exactly as a call would (speech/bias.py `build_bias`): by default a profile built up
over 20 calls (bench/names_profile.py: ~46 names, one call a day), or `--learner small`,
one call's 13 memories ("My best friend is called Haneul", "I have a dog named Kongi", ...). Sentences that use those names are spoken by the
app's own TTS (Piper joe at two speeds, plus an espeak-ng voice when installed) into a
temporary folder and transcribed by Whisper with no list, with the list as `hotwords`
and as `initial_prompt`. Same run: WER on the shared clips (plain speech, no names) per
mode, and on plain learner sentences with none of the names (Piper, same voices), so a list
that makes plain speech worse shows, and silence / low noise per mode (prompted Whisper's
known failure is to "hear" the prompt there). Prints; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from tutor_app.bench.common import machine_line

GOALS = "names right with the list >= 80 %; plain WER (shared and plain clips) not worse; silence/noise -> no text"
MODES = ("off", "hotwords", "prompt")
PROFILES = ("calls", "small")
PROFILE = "bench-names"

# The learner's memories: (text, category, importance, meta). Names in them, plus things
# that must never reach the list (a PIN, plain words).
MEMORIES = (
    ("Name: Minji", "name", 0.9, {"field": "name", "value": "Minji"}),
    ("Occupation: UX designer at Naver", "occupation", 0.8, {"field": "occupation", "value": "UX designer at Naver"}),
    ("My best friend is called Haneul", "fact", 0.6, {}),
    ("I meet my boyfriend Seonghwa in Hongdae", "fact", 0.6, {}),
    ("I have a dog named Kongi", "fact", 0.6, {}),
    ("I design screens in Figma every day", "occupation", 0.6, {}),
    ("My sister Jiwoo lives in Busan", "fact", 0.6, {}),
    ("Our cat is called Dubu", "fact", 0.5, {}),
    ("I like hiking on Bukhansan with my friend Minho", "interest", 0.6, {}),
    ("I grew up in Ilsan and now I live in Mapo", "fact", 0.5, {}),
    ("I have a job interview at Kakao next month", "schedule", 0.7, {}),
    ("My bank PIN is 4921", "fact", 0.4, {}),
    ("I love spicy rice cakes", "preference", 0.5, {}),
)

# (sentence, names in it): 11 sentences, 15 names.
SENTENCES = (
    ("Hi, my name is Minji, and I'd like to practise my English.", ("Minji",)),
    ("Yesterday I had lunch with Haneul near my office.", ("Haneul",)),
    ("Seonghwa and I walked around Hongdae after dinner.", ("Seonghwa", "Hongdae")),
    ("I took Kongi to the park, and he chased a pigeon.", ("Kongi",)),
    ("My team at Naver is redesigning the search page.", ("Naver",)),
    ("I spent the whole morning fixing prototypes in Figma.", ("Figma",)),
    ("Jiwoo called me from Busan last night.", ("Jiwoo", "Busan")),
    ("Our cat Dubu sleeps on my keyboard all the time.", ("Dubu",)),
    ("On Saturday we hiked up Bukhansan with Minho.", ("Bukhansan", "Minho")),
    ("I grew up in Ilsan, but now I live in Mapo.", ("Ilsan", "Mapo")),
    ("Kakao offered me an interview next month.", ("Kakao",)),
)
# Plain learner sentences: none of the profile's names, words a bias list could pull toward them.
PLAIN = (
    "I usually take the subway to work, but today I walked because the weather was nice.",
    "My manager asked me to prepare a short presentation for the meeting on Friday.",
    "I would like to speak more naturally when I talk with clients on the phone.",
    "Last weekend I cooked dinner for my family and we watched a movie together.",
    "I am a little nervous about the interview, so I want to practise my answers.",
    "When I was a student, I never had the chance to talk with native speakers.",
    "Could you tell me if this sentence sounds natural or too formal?",
    "I think I drink too much coffee, maybe four cups a day.",
    "My hobby is playing the guitar, but I have not practised for a long time.",
    "Honestly, I get tired after work, and it is hard to study in the evening.",
)
VOICES = ("piper:joe@1.0", "piper:joe@1.25")  # normal and a slower learner
ESPEAK_VOICE = "espeak:en-us@150"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR", default=None,
                        help="folder with speech/manifest.tsv (default: shared/data beside the checkout)")
    parser.add_argument("--stt-model", default=None, metavar="NAME", help="default: settings (whisper-tiny.en)")
    parser.add_argument("--learner", choices=PROFILES, default="calls",
                        help="calls: built up over 20 calls (default); small: one call's 13 memories")
    parser.add_argument("--modes", default="off,hotwords", help=f"comma-separated: {', '.join(MODES)}")
    parser.add_argument("--max-terms", type=int, default=None, metavar="N",
                        help="cut the profile's list to its first N terms (try a shorter list)")
    parser.add_argument("--no-espeak", action="store_true", help="Piper voices only")
    parser.add_argument("--keep", metavar="DIR", default=None, help="write the name clips here and keep them")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


def heard(name: str, text: str) -> bool:
    """The name as a word of the transcript (case, possessive and inner hyphens ignored)."""
    words = re.findall(r"[a-z]+(?:[-'][a-z]+)*", text.lower())
    norm = {w.replace("-", "").removesuffix("'s") for w in words}
    return name.lower() in norm


def name_profile(folder: Path, embedder, kind: str = "small"):
    """A real memory store with the name-rich profile (and one other profile beside it)."""
    from tutor_app.memory.storage.store import open_store

    other = open_store(folder, embedder, "someone-else")
    other.add("My brother Dmitri lives in Novosibirsk", category="fact")
    other.close()
    store = open_store(folder, embedder, PROFILE)
    if kind == "calls":
        from tutor_app.bench.names_profile import fill_store

        fill_store(store)
        return store
    for text, category, importance, meta in MEMORIES:
        store.add(text, category=category, importance=importance, meta=meta)
    return store


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.bench.speech import default_data_dir, read_manifest
    from tutor_app.errors import TutorError
    from tutor_app.speech.audiofile import load_audio
    from tutor_app.speech.bias import BiasList, build_bias
    from tutor_app.speech.devices import select_compute
    from tutor_app.speech.stt import SttOptions, WhisperStt

    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    if not modes or any(m not in MODES for m in modes):
        raise TutorError(f"bench names: --modes takes {', '.join(MODES)}")
    data = Path(args.data) if args.data else default_data_dir()
    try:
        rows = read_manifest(data)
    except OSError as exc:
        raise TutorError(f"bench names: no speech data at {data} ({exc.strerror}); pass --data DIR") from None
    print(machine_line())
    work = Path(tempfile.mkdtemp(prefix="tutor-bench-names-"))
    try:
        store = name_profile(work / "memory.lancedb", app.embedder, args.learner)
        started = time.perf_counter()
        bias = build_bias(store)
        bias_ms = (time.perf_counter() - started) * 1000
        store.close()
        if args.max_terms is not None:
            bias = BiasList(bias.terms[:max(0, args.max_terms)])
        spoken = {n for _s, names in SENTENCES for n in names}
        print(f"profile {args.learner}: bias list ({len(bias)} terms, {len(bias.text)} chars, built in "
              f"{bias_ms:.0f} ms; {len(spoken & set(bias.terms))} of the {len(spoken)} spoken names): {bias.text}")
        folder = Path(args.keep) if args.keep else work / "clips"
        clips = _name_clips(app.registry, folder, not args.no_espeak)
        plain = _plain_clips(app.registry, folder, not args.no_espeak)
        name = args.stt_model or app.settings.speech.stt_model
        choice = select_compute("auto", "auto")
        base = SttOptions.from_settings(app.settings.speech)
        from dataclasses import replace

        stt = WhisperStt(app.registry.path(name), app.vad, choice.device, choice.compute_type, base)
        shared = [(row, load_audio(data / "speech" / row["file"])) for row in rows]
        results = {mode: _measure(stt, replace(base, bias_mode=mode), bias, clips, shared, plain) for mode in modes}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    total = sum(len(names) for _t, names, _v, _a in clips)
    voices = sorted({v for _t, _n, v, _a in clips})
    print(f"\nSTT {name} on {choice.device} {choice.compute_type} (beam {base.beam_size}); "
          f"{len(clips)} name clips ({len(SENTENCES)} sentences x {len(voices)} voices: {', '.join(voices)})")
    print(f"  {'mode':10} {'names right':>14} {'shared-clip WER':>20} {'plain-clip WER':>20} "
          f"{'silence/noise':>14} {'ms/clip':>8}")
    for mode, r in results.items():
        print(f"  {mode:10} {r['right']:>4}/{total:<3} {r['right'] / total * 100:5.1f}% "
              f"{r['wer'] * 100:6.2f} % ({r['errors']:>2}/{r['words']}) "
              f"{r['plain_wer'] * 100:6.2f} % ({r['plain_errors']:>2}/{r['plain_words']}) "
              f"{r['noise_text'] or '(none)':>14} {r['ms_per_clip']:8.0f}")
    print(f"  goals: {GOALS}")
    for mode, r in results.items():
        if r["missed"]:
            print(f"  missed ({mode}): " + "; ".join(r["missed"][:12]))
    if "off" in results:  # plain sentences heard worse with the list: what it pulled them toward
        for mode, r in results.items():
            worse = [f"{got} (+{e - e0})" for (e, got), (e0, _g) in zip(r["plain_heard"], results["off"]["plain_heard"])
                     if e > e0]
            if mode != "off" and worse:
                print(f"  plain worse ({mode}): " + "; ".join(worse))
    if args.json:
        summary = {"bench": "names", "profile": args.learner, "stt_model": name, "names_total": total, "clips": len(clips),
                   "voices": voices, "bias_terms": len(bias), "bias_chars": len(bias.text),
                   "bias_build_ms": round(bias_ms, 1)}
        for mode, r in results.items():
            summary[f"names_right_{mode}"] = r["right"]
            summary[f"names_rate_{mode}"] = round(r["right"] / total, 4)
            summary[f"wer_{mode}"] = round(r["wer"], 4)
            summary[f"plain_wer_{mode}"] = round(r["plain_wer"], 4)
            summary[f"noise_text_{mode}"] = r["noise_text"]
        print(json.dumps(summary))
    return 0


def _name_clips(registry, folder: Path, with_espeak: bool) -> list[tuple[str, tuple[str, ...], str, np.ndarray]]:
    """(sentence, names, voice, 16 kHz samples) per sentence and voice; also written as WAVs."""
    from tutor_app.bench.splice import Voices
    from tutor_app.speech.tts import write_wav

    voices = list(VOICES) + ([ESPEAK_VOICE] if with_espeak and shutil.which("espeak-ng") else [])
    speaker = Voices(registry)
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for v, voice in enumerate(voices):
        for i, (text, names) in enumerate(SENTENCES):
            audio = speaker.speak(voice, text)
            write_wav(folder / f"names-{v}-{i:02d}.wav", audio, 16000)
            out.append((text, names, voice, audio))
    return out


def _plain_clips(registry, folder: Path, with_espeak: bool) -> list[tuple[str, np.ndarray]]:
    """(sentence, 16 kHz samples) for the plain sentences, one per sentence and voice."""
    from tutor_app.bench.splice import Voices

    voices = list(VOICES) + ([ESPEAK_VOICE] if with_espeak and shutil.which("espeak-ng") else [])
    speaker = Voices(registry)
    folder.mkdir(parents=True, exist_ok=True)
    return [(text, speaker.speak(voice, text)) for voice in voices for text in PLAIN]


def _measure(stt, options, bias, clips, shared, plain=()) -> dict:
    from tutor_app.core.types import AudioClip
    from tutor_app.speech.wer import wer_counts

    stt.options = options  # "off": the list is not used at all (not even to snap near misses)
    right, missed, seconds = 0, [], 0.0
    for _text, names, voice, audio in clips:
        started = time.perf_counter()
        text = stt.transcribe(AudioClip(audio, 16000), bias=bias).text
        seconds += time.perf_counter() - started
        for n in names:
            if heard(n, text):
                right += 1
            else:
                missed.append(f"{n} ({voice.split(':')[0]}): {text}")
    errors = words = 0
    for row, clip in shared:
        counts = wer_counts(row["transcript"], stt.transcribe(clip, bias=bias).text)
        errors += counts.errors
        words += counts.reference_words
    plain_errors = plain_words = 0
    plain_heard = []
    for text, audio in plain:
        got = stt.transcribe(AudioClip(audio, 16000), bias=bias).text
        counts = wer_counts(text, got)
        plain_errors += counts.errors
        plain_words += counts.reference_words
        plain_heard.append((counts.errors, got))
    rng = np.random.default_rng(3)
    quiet = [np.zeros(16000 * 5, np.float32)] + [rng.normal(0, a, 16000 * 5).astype(np.float32) for a in (0.003, 0.03)]
    noise_text = " | ".join(t for t in (stt.transcribe(AudioClip(q, 16000), bias=bias).text for q in quiet) if t)
    return {"right": right, "missed": missed, "wer": errors / words if words else 0.0,
            "errors": errors, "words": words, "plain_errors": plain_errors, "plain_words": plain_words,
            "plain_wer": plain_errors / plain_words if plain_words else 0.0, "plain_heard": plain_heard,
            "noise_text": noise_text[:60], "ms_per_clip": seconds / len(clips) * 1000}
