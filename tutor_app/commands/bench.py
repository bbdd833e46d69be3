"""`tutor-app bench AREA`: measures this machine. Each area lives in tutor_app/bench/AREA.py
with `add_arguments(parser)` and `run(args, app)`; benchmarks print, they never assert."""
from __future__ import annotations

import argparse
import importlib

from tutor_app.commands import module_available

AREAS = {
    "speech": "STT real-time factor (cold/warm), WER on the shared clips, TTS RTF and first audio",
    "stt-stream": "recognition while the learner speaks (LocalAgreement) vs at the end, short encoder window: "
                  "WER, ms from the last voiced sample to the transcript, CPU while listening",
    "names": "names heard right with and without the profile's bias list for Whisper; WER unchanged",
    "emotion": "emotion model dev macro-F1, per-label F1, latency and throughput",
    "memory": "memory insert throughput, recall latency at 1k/10k/100k, retrieval quality",
    "tutor": "per-stage turn timings and time to first sentence vs the naive path",
    "call": "live call latency through the audio path vs the naive cascade",
    "turns": "turn-taking on pause clips: cut-offs and voice-to-voice time, end-of-turn judge vs silence rule",
    "echo": "echo cancellation on a looped-back virtual sound card: ERLE, false turns, barge-in time (app stamps and as heard), CPU",
    "ui": "seconds from starting the desktop app to its window, and to warmed-up models",
    "language": "the not-English gate: English (recorded, accented, noisy) passed, Korean/Japanese/Chinese turned away",
    "llm": "local model: llama.cpp vs transformers (load, first token, tokens/s), call-end extraction and time",
    "tutor-quality": "local tutor models on learner lines with errors: parroting, recasts, nonsense, speed",
}


def module_of(area: str) -> str:
    return "tutor_app.bench." + area.replace("-", "_")


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("bench", parents=[common], help="measure this machine (prints numbers)",
                       description="Benchmarks: each prints a table; nothing is asserted.")
    bsub = p.add_subparsers(dest="bench_area", metavar="AREA", required=True)
    available = []
    for area, help_text in AREAS.items():
        module_name = module_of(area)
        if not module_available(module_name):
            continue
        module = importlib.import_module(module_name)
        ap = bsub.add_parser(area, parents=[common], help=help_text)
        module.add_arguments(ap)
        ap.set_defaults(func=module.run)
        available.append(area)
    allp = bsub.add_parser("all", parents=[common], help="every benchmark with its defaults")
    allp.set_defaults(func=_run_all, bench_areas=available, bench_parser=bsub)


def _run_all(args: argparse.Namespace, app) -> int:
    status = 0
    for area in args.bench_areas:
        print(f"\n=== bench {area} ===", flush=True)
        module = importlib.import_module(module_of(area))
        parser = argparse.ArgumentParser()
        module.add_arguments(parser)
        status |= int(module.run(parser.parse_args([]), app) or 0)
    return status
