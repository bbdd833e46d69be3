"""`tutor-app bench stt-stream`: recognition while the learner speaks vs at the end.

Each clip is played as one live utterance on a simulated clock (audio arrives in real
time, decodes take their measured wall time) through up to four variants:
- whole: today's path, `WhisperStt.transcribe` of the whole utterance once it ends;
- whole-short: the same with the encoder window sized to the speech (SttOptions);
- stream: `StreamingTranscriber` passes every --step s of new audio (LocalAgreement-2),
  then `finish` decodes the uncommitted tail only;
- stream-short: the same with the short encoder window.
A pass starts when it is due and the (one) STT worker is free; the end's decode starts
--early-ms after the last voiced sample (the listener's early STT) or when the pass
still decoding then ends. Per variant: WER over the clips; "ready", ms from the last
voiced sample to the transcript (p50/p90: what sits on the answer path); the decode of
the end alone; CPU seconds (the whole process, all threads) per second of speech spent
while the learner was still speaking, and at the end. Prints; asserts nothing.

Clips: the shared speech clips (speech/manifest.tsv, as `bench speech`), and the
pause clips of `bench turns` (sentences with a 0.6-2 s pause inside, made when missing).
Each utterance runs from 300 ms before its first voiced frame to its last voiced frame,
as the listener cuts it.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from tutor_app.bench.common import percentile

VARIANTS = ("whole", "whole-short", "stream", "stream-short")
GOALS = "WER within +0.5 points of whole; ready <= 200 ms after the last voiced sample (the judge's silence)"
PREROLL_S = 0.3
FRAME = 512


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", metavar="DIR", default=None,
                        help="folder with speech/manifest.tsv (default: shared/data beside the checkout)")
    parser.add_argument("--sets", default="shared,pause",
                        help="comma-separated clip sets: shared (speech/manifest.tsv), pause (bench turns' clips)")
    parser.add_argument("--clips", metavar="DIR", default=None, help="pause-clip folder (made when missing)")
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated: " + ", ".join(VARIANTS))
    from tutor_app.speech.streaming import StreamOptions

    o = StreamOptions()
    parser.add_argument("--step", type=float, default=o.step_s, help=f"seconds of new audio between passes ({o.step_s:g})")
    from tutor_app.call.options import RecognitionOptions
    from tutor_app.speech.stt import SttOptions

    window, margin = RecognitionOptions().window_s, SttOptions().encoder_margin_s  # the call's own
    parser.add_argument("--window", type=float, default=window,
                        help=f"the short variants' encoder window floor, s ({window:g}, the call's)")
    parser.add_argument("--margin", type=float, default=margin,
                        help=f"the short variants' padding after the speech, s ({margin:g}, the call's)")
    parser.add_argument("--context", type=float, default=o.context_s,
                        help=f"StreamOptions.context_s: decode from a cut at least this long before the end ({o.context_s:g})")
    parser.add_argument("--prompt-chars", type=int, default=o.prompt_chars,
                        help=f"StreamOptions.prompt_chars: final text given as the prompt ({o.prompt_chars}; 0: none)")
    parser.add_argument("--word-cut", type=float, default=o.word_cut_s,
                        help=f"StreamOptions.word_cut_s: cut between words after this long without a pause "
                             f"({o.word_cut_s:g}; 0: off)")
    parser.add_argument("--beam", type=int, default=0, help="Whisper's beam size (0: the app's own)")
    parser.add_argument("--early-ms", type=float, default=64.0,
                        help="silence before the end's decode starts, ms (the listener's early STT: 64)")
    parser.add_argument("--repeat", type=int, default=1,
                        help="runs of each clip per variant, each with its own random seed (1, 2, ...)")
    parser.add_argument("--per-clip", action="store_true", help="also print each clip's text and times")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


@dataclass
class Totals:
    errors: int = 0
    words: int = 0
    ready_ms: list[float] = field(default_factory=list)
    decode_ms: list[float] = field(default_factory=list)
    listen_cpu_s: float = 0.0
    end_cpu_s: float = 0.0
    speech_s: float = 0.0
    passes: int = 0
    tail_s: list[float] = field(default_factory=list)


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.bench.common import machine_line

    clips = _clips(args, app)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        from tutor_app.errors import TutorError

        raise TutorError(f"bench stt-stream: unknown variant {unknown[0]!r} (choose from {', '.join(VARIANTS)})")
    print(machine_line())
    speech = sum(len(a) for _, _, a in clips) / 16000
    print(f"{len(clips)} utterances, {speech:.1f} s of speech; passes every {args.step:g} s of new audio; "
          f"short window: speech + {args.margin:g} s, at least {args.window:g} s; end decode from "
          f"{args.early_ms:g} ms of silence")
    stts = _stts(app, args)
    summary: dict = {"bench": "stt-stream", "load_avg": round(os.getloadavg()[0], 2), "clips": len(clips)}
    for variant in variants:
        totals = Totals()
        stt = stts["short" if variant.endswith("short") else "full"]
        for seed in range(1, max(1, args.repeat) + 1):
            seeded = Seeded(stt, seed)
            for name, reference, audio in clips:
                _one(variant, seeded, args, name, reference, audio, totals)
        summary[variant] = _report(variant, totals)
    print(f"goals: {GOALS}")
    print(f"load average at the end: {os.getloadavg()[0]:.2f}")
    if args.json:
        print(json.dumps(summary))
    return 0


class Seeded:
    """The STT with CTranslate2's random seed set before each decode: Whisper samples
    when its greedy decode fails (temperature fallback), which made the same run's WER
    move by +-3 errors; seeded, a variant's WER moves only with what it decodes."""

    def __init__(self, stt, seed: int) -> None:
        self.stt, self.seed = stt, seed

    def transcribe(self, audio, bias=None):
        self._seed()
        return self.stt.transcribe(audio, bias)

    def transcribe_part(self, audio, start=0, prompt="", bias=None):
        self._seed()
        return self.stt.transcribe_part(audio, start, prompt, bias)

    def _seed(self) -> None:
        import ctranslate2

        ctranslate2.set_random_seed(self.seed)


def _stts(app, args) -> dict:
    from dataclasses import replace

    from tutor_app.speech.devices import select_compute
    from tutor_app.speech.stt import SttOptions, WhisperStt

    speech = app.settings.speech
    choice = select_compute(speech.stt_device, speech.stt_compute_type)
    base = SttOptions.from_settings(speech)
    if args.beam > 0:
        base = replace(base, beam_size=args.beam)
    path = app.registry.path(speech.stt_model)
    out = {"full": WhisperStt(path, app.vad, choice.device, choice.compute_type, replace(base, encoder_window_s=30.0)),
           "short": WhisperStt(path, app.vad, choice.device, choice.compute_type,
                               replace(base, encoder_window_s=args.window, encoder_margin_s=args.margin))}
    for stt in out.values():
        stt.warm_up()
    print(f"STT {speech.stt_model} on {choice.device} {choice.compute_type}, beam {base.beam_size}")
    return out


def _clips(args, app) -> list[tuple[str, str, object]]:
    """(name, reference text, utterance samples) per clip."""
    from tutor_app.errors import TutorError

    sets = {s.strip() for s in args.sets.split(",") if s.strip()}
    if not sets or sets - {"shared", "pause"}:
        raise TutorError(f"bench stt-stream: --sets takes shared and/or pause, got {args.sets!r}")
    out = []
    if "shared" in sets:
        from tutor_app.bench.speech import default_data_dir, read_manifest
        from tutor_app.speech.audiofile import load_audio

        data = Path(args.data) if args.data else default_data_dir()
        try:
            rows = read_manifest(data)
        except OSError as exc:
            raise TutorError(f"bench stt-stream: no speech data at {data} ({exc.strerror}); pass --data DIR") from None
        for row in rows:
            audio = _utterance(app.vad, load_audio(data / "speech" / row["file"]).samples)
            out.append((row["file"], row["transcript"], audio))
    if "pause" in sets:
        from tutor_app.bench.pause_clips import ensure_pause_clips, load_clip

        folder = Path(args.clips or Path(tempfile.gettempdir()) / "tutor-pause-clips")
        for clip in ensure_pause_clips(folder, app.registry):
            out.append((clip.id, clip.text, _utterance(app.vad, load_clip(folder, clip))))
    return out


def _utterance(vad, samples):
    """From 300 ms before the first voiced frame to one frame past the last one: the call
    decodes a turn from its first frame of silence."""
    probabilities = vad.frame_probabilities(samples)
    voiced = [i for i, p in enumerate(probabilities) if p >= 0.5]
    if not voiced:
        return samples
    start = max(0, voiced[0] * FRAME - int(PREROLL_S * 16000))
    return samples[start:min(len(samples), (voiced[-1] + 2) * FRAME)]


def _one(variant: str, stt, args, name: str, reference: str, audio, totals: Totals) -> None:
    from tutor_app.speech.streaming import StreamingTranscriber, StreamOptions
    from tutor_app.speech.wer import wer_counts

    end_s = len(audio) / 16000
    free_at = 0.0  # simulated time (s from the utterance's start) the STT worker is free
    listen_cpu = 0.0
    streamer = None
    if variant.startswith("stream"):
        streamer = StreamingTranscriber(stt, options=StreamOptions(step_s=args.step, word_cut_s=args.word_cut,
                                                                  context_s=args.context, prompt_chars=args.prompt_chars))
        position = 0
        while True:
            position += FRAME  # the audio thread asks once per frame
            if position >= len(audio):
                break
            if position / 16000 < free_at or not streamer.due(position):
                continue
            job = streamer.pass_job(audio[:position])
            wall, cpu, _ = _timed(job)
            listen_cpu += cpu
            free_at = position / 16000 + wall
    start = max(end_s + args.early_ms / 1000, free_at)
    if streamer is not None:
        wall, cpu, transcript = _timed(lambda: streamer.finish(audio))
        tail_s = streamer.stats.finish_seconds
        totals.passes += streamer.stats.passes
        totals.tail_s.append(tail_s)
    else:
        from tutor_app.core.types import AudioClip

        wall, cpu, transcript = _timed(lambda: stt.transcribe(AudioClip(audio, 16000)))
    ready_ms = (start + wall - end_s) * 1000
    counts = wer_counts(reference, transcript.text)
    totals.errors += counts.errors
    totals.words += counts.reference_words
    totals.ready_ms.append(ready_ms)
    totals.decode_ms.append(wall * 1000)
    totals.listen_cpu_s += listen_cpu
    totals.end_cpu_s += cpu
    totals.speech_s += end_s
    if args.per_clip:
        print(f"  {variant:12} {name[:40]:40} {end_s:5.1f} s  ready {ready_ms:6.0f} ms  "
              f"{counts.errors:2d}/{counts.reference_words:<2d} {transcript.text}")


def _timed(job):
    started, cpu = time.perf_counter(), time.process_time()
    result = job()
    return time.perf_counter() - started, time.process_time() - cpu, result


def _report(variant: str, t: Totals) -> dict:
    wer = t.errors / t.words if t.words else 0.0
    row = {"wer": round(wer, 4), "errors": t.errors, "words": t.words,
           "ready_ms_p50": round(statistics.median(t.ready_ms)), "ready_ms_p90": round(percentile(t.ready_ms, 90)),
           "decode_ms_p50": round(statistics.median(t.decode_ms)),
           "listen_cpu_per_s": round(t.listen_cpu_s / t.speech_s, 3), "end_cpu_per_s": round(t.end_cpu_s / t.speech_s, 3)}
    tail = f", tail decoded {statistics.median(t.tail_s):.2f} s p50, {t.passes} passes" if t.tail_s else ""
    print(f"{variant:13} WER {wer * 100:5.2f} % ({t.errors}/{t.words})  ready p50 {row['ready_ms_p50']:5d} ms "
          f"p90 {row['ready_ms_p90']:5d} ms  (decode {row['decode_ms_p50']} ms p50)  CPU while listening "
          f"{row['listen_cpu_per_s']:.3f} s/s, at the end {row['end_cpu_per_s']:.3f} s/s{tail}", flush=True)
    return row
