"""`tutor-app bench speech`: STT speed (cold and warm) and accuracy, TTS speed and time to
first audio. Prints numbers next to the targets; never asserts.

Targets on a 2-core CPU: STT RTF <= 0.12 warm (Whisper tiny.en int8), WER <= 6 % over
the shared clips, TTS RTF <= 0.06, first TTS audio <= 150 ms for a 12-word sentence.
RTF = processing seconds / audio seconds (lower is faster). Numbers move with other
load on the machine, so the load average is printed with them.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

TARGETS = {"stt_rtf_warm": 0.12, "wer": 0.06, "tts_rtf": 0.06, "tts_first_audio_ms": 150}
SENTENCE = "Could you tell me a little more about your job interview yesterday?"  # 12 words


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR", default=None,
                        help="folder with speech/manifest.tsv (default: shared/data beside the checkout)")
    parser.add_argument("--stt-model", default=None, metavar="NAME", help="default: settings (whisper-tiny.en)")
    parser.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--compute-type", default="auto", help="auto: float16 on CUDA, int8 on CPU")
    parser.add_argument("--repeat", type=int, default=3, help="warm runs per measurement (median)")
    parser.add_argument("--skip-stt", action="store_true")
    parser.add_argument("--skip-tts", action="store_true")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


def default_data_dir() -> Path:
    from tutor_app.paths import source_root

    return source_root().parent / "shared" / "data"


def read_manifest(data_dir: Path) -> list[dict[str, str]]:
    import csv

    manifest = data_dir / "speech" / "manifest.tsv"
    with manifest.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def run(args: argparse.Namespace, app) -> int:
    summary: dict[str, object] = {}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPU cores, load average {load:.2f} (other work slows every number)")
    if not args.skip_stt:
        summary.update(_bench_stt(args, app))
    if not args.skip_tts:
        summary.update(_bench_tts(args, app))
    if args.json:
        print(json.dumps({"bench": "speech", "load_avg": round(load, 2), **summary}))
    return 0


def _bench_stt(args, app) -> dict[str, object]:
    from tutor_app.errors import TutorError
    from tutor_app.speech.audiofile import load_audio
    from tutor_app.speech.devices import select_compute
    from tutor_app.speech.stt import SttOptions, WhisperStt
    from tutor_app.speech.wer import wer_counts

    data = Path(args.data) if args.data else default_data_dir()
    try:
        rows = read_manifest(data)
    except OSError as exc:
        raise TutorError(f"bench speech: no speech data at {data} ({exc.strerror}); pass --data DIR") from None
    clips = [(row, load_audio(data / "speech" / row["file"])) for row in rows]
    name = args.stt_model or app.settings.speech.stt_model
    choice = select_compute(args.device, args.compute_type)
    vad = app.vad
    started = time.perf_counter()
    stt = WhisperStt(app.registry.path(name), vad, choice.device, choice.compute_type,
                     SttOptions.from_settings(app.settings.speech))
    load_s = time.perf_counter() - started
    first_row, first_clip = clips[0]
    started = time.perf_counter()
    stt.transcribe(first_clip)
    cold_rtf = (time.perf_counter() - started) / first_clip.seconds
    print(f"\nSTT {name} on {choice.device} {choice.compute_type} (beam {stt.options.beam_size})")
    print(f"  model load          {load_s * 1000:8.0f} ms")
    print(f"  cold RTF            {cold_rtf:8.3f}   (first transcription after load: {first_row['file']})")
    errors = words = 0
    audio_s = 0.0
    times: list[float] = []
    print(f"  {'clip':58} {'sec':>6} {'RTF':>6} {'WER':>6}  text")
    for row, clip in clips:
        runs = []
        for _ in range(max(1, args.repeat)):
            started = time.perf_counter()
            transcript = stt.transcribe(clip)
            runs.append(time.perf_counter() - started)
        best = statistics.median(runs)
        times.append(best)
        audio_s += clip.seconds
        counts = wer_counts(row["transcript"], transcript.text)
        errors += counts.errors
        words += counts.reference_words
        print(f"  {row['file'][:58]:58} {clip.seconds:6.2f} {best / clip.seconds:6.3f} "
              f"{counts.wer * 100:5.1f}%  {transcript.text[:70]}")
    warm_rtf = sum(times) / audio_s
    print(f"  cold vs warm on {first_row['file']}: {cold_rtf:.3f} vs {times[0] / first_clip.seconds:.3f}; "
          f"cold including the model load: {(load_s + cold_rtf * first_clip.seconds) / first_clip.seconds:.3f}")
    total_wer = errors / words if words else 0.0
    print(f"  warm RTF (all clips) {warm_rtf:7.3f}   target <= {TARGETS['stt_rtf_warm']}")
    print(f"  WER (all clips)     {total_wer * 100:7.2f} %  target <= {TARGETS['wer'] * 100:.0f} % "
          f"({errors} errors / {words} words)")
    return {"stt_model": name, "stt_device": choice.device, "stt_compute_type": choice.compute_type,
            "stt_load_ms": round(load_s * 1000), "stt_rtf_cold": round(cold_rtf, 4),
            "stt_rtf_warm": round(warm_rtf, 4), "wer": round(total_wer, 4)}


def _bench_tts(args, app) -> dict[str, object]:
    from tutor_app.speech.tts import load_tts

    started = time.perf_counter()
    tts = load_tts(app.settings, app.registry)
    load_s = time.perf_counter() - started
    started = time.perf_counter()
    cold_first = None
    for _chunk in tts.synthesize(SENTENCE):  # includes espeak-ng start-up
        cold_first = cold_first or time.perf_counter() - started
    firsts, rtfs = [], []
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        samples = 0
        first = None
        for chunk in tts.synthesize(SENTENCE):
            first = first or time.perf_counter() - started
            samples += len(chunk)
        elapsed = time.perf_counter() - started
        firsts.append(first or elapsed)
        rtfs.append(elapsed / (samples / tts.sample_rate))
    first_ms = statistics.median(firsts) * 1000
    rtf = statistics.median(rtfs)
    fast_firsts = []
    for _ in range(max(1, args.repeat)):
        started = time.perf_counter()
        next(iter(tts.synthesize(SENTENCE, fast_start=True)))
        fast_firsts.append(time.perf_counter() - started)
    fast_ms = statistics.median(fast_firsts) * 1000
    print(f"\nTTS {app.settings.speech.tts_voice} ({tts.sample_rate} Hz), sentence of "
          f"{len(SENTENCE.split())} words: \"{SENTENCE}\"")
    print(f"  voice load          {load_s * 1000:8.0f} ms")
    print(f"  first audio (cold)  {(cold_first or 0) * 1000:8.0f} ms")
    print(f"  first audio (warm)  {first_ms:8.0f} ms   target <= {TARGETS['tts_first_audio_ms']} ms")
    print(f"  first audio (warm, fast_start) {fast_ms:5.0f} ms   (first phrase spoken alone)")
    print(f"  RTF (warm)          {rtf:8.3f}   target <= {TARGETS['tts_rtf']}")
    return {"tts_load_ms": round(load_s * 1000), "tts_first_audio_ms_cold": round((cold_first or 0) * 1000),
            "tts_first_audio_ms": round(first_ms), "tts_first_audio_ms_fast_start": round(fast_ms),
            "tts_rtf": round(rtf, 4)}
