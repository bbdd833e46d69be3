"""`tutor-app bench language`: how often the "not English" gate (tutor/heard.py) turns a
spoken turn away. English must pass (the shared recordings; English in espeak-ng's Korean
and Chinese voices, as a strongly accented learner; Piper at other speeds; some with
noise); Korean, Japanese and Chinese speech (espeak-ng) must be turned away. The clips are
made in a temporary folder (bench/language_clips.py). Prints; never asserts.
"""
from __future__ import annotations

import argparse
import os
import tempfile
from collections import defaultdict
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR", default=None,
                        help="folder with speech/manifest.tsv (default: shared/data beside the checkout)")
    parser.add_argument("--quick", action="store_true", help="one delivery per sentence, no noisy copies, no Piper")
    parser.add_argument("--show", action="store_true", help="print each wrong decision with what Whisper heard")


def run(args: argparse.Namespace, app) -> int:
    import numpy as np

    from tutor_app.bench.language_clips import LangClip, espeak_available, espeak_clips, piper_clips, shared_clips
    from tutor_app.bench.speech import default_data_dir
    from tutor_app.errors import TutorError
    from tutor_app.tutor.heard import heard

    if not espeak_available():
        raise TutorError("bench language: espeak-ng is not installed (scripts/system-packages.sh installs it)")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPU cores, load average {load:.2f}")
    data = Path(args.data) if args.data else default_data_dir()
    clips: list[LangClip] = []
    if (data / "speech" / "manifest.tsv").exists():
        clips += shared_clips(data)
    else:
        print(f"(no shared clips at {data}: pass --data DIR)")
    with tempfile.TemporaryDirectory(prefix="tutor-lang-") as folder:
        clips += espeak_clips(Path(folder), quick=args.quick)
    if not args.quick:
        tts = app.tts

        def synthesize(text: str, speed: float) -> np.ndarray:
            tts.set_rate(speed)
            return np.concatenate(list(tts.synthesize(text)))

        clips += piper_clips(synthesize, tts.sample_rate)
        tts.set_rate(1.0)
    stt = app.stt
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])  # source -> [clips, rejected]
    must: dict[str, bool] = {}
    for clip in clips:
        transcript = stt.transcribe(clip.clip)
        verdict = heard(transcript)
        rejected = not verdict.understood
        counts[clip.source][0] += 1
        counts[clip.source][1] += int(rejected)
        must[clip.source] = clip.english
        if args.show and rejected == clip.english:
            print(f"  wrong: {clip.name} ({verdict.reason}, logprob {verdict.avg_logprob}): {transcript.text[:60]}")
    print(f"\n{'source':34} {'should':>7} {'clips':>6} {'rejected':>9} {'rate':>7}")
    totals = {True: [0, 0], False: [0, 0]}
    for source, (n, rejected) in counts.items():
        english = must[source]
        totals[english][0] += n
        totals[english][1] += rejected
        print(f"{source:34} {'pass' if english else 'reject':>7} {n:6d} {rejected:9d} {rejected / n:7.1%}")
    for english, label in ((True, "false rejections (English)"), (False, "true rejections (not English)")):
        n, rejected = totals[english]
        if n:
            print(f"{label:34} {'':>7} {n:6d} {rejected:9d} {rejected / n:7.1%}")
    return 0
