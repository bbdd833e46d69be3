"""`tutor-app bench call`: live-call latency through the real audio path.

Recorded utterances are played into the virtual microphone (PulseAudio null sink
`micsrc`, see scripts/virtual-audio.sh); the app's live call hears them, the tutor model
is the project's fake Anthropic server with a fixed timing (default: first token after
400 ms, then 40 tokens/s; `tutor-app --llm local bench call`: the local model instead),
and Piper speaks into the virtual speaker. Per turn, from the
last voiced sample (ms): STT done, first LLM token, first sentence, first audio (the
first sample handed to the output device) and first audible (that plus what the first
sample waits of the output stream's latency: none when the output restarts for the reply,
speech/playback.py; the whole latency as PortAudio reports it on a device too slow to restart). Voice to voice is also timed outside the app:
the microphone's feed and the speaker are recorded on one clock (bench/outside.py), from
the clip's last voiced frame to the tutor's first sample over -60 dBFS - what the learner
hears, with the sound server's own buffering the app's stamps cannot see (~25-45 ms more
here). The next clip plays 2 s after the tutor's reply ends (the recording tells clips
apart by that silence). The same run times the naive cascade on the same clips: full STT -> full LLM reply
-> full TTS -> play. Also: CPU use while idle-listening (process CPU time over a quiet
period). Prints numbers next to the targets; never asserts.

Targets (2-core CPU, Whisper tiny.en): voice to voice <= 900 ms p50; pipeline overhead beyond the LLM's own time to
its first sentence <= 400 ms p50; first audio <= 0.3 x the naive cascade; idle-listening
CPU <= 10 % of one core. First, from `start_call` to the greeting's first sample handed to
the device (the tutor speaks first; target 1.5 s).
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tutor_app.bench.common import TYPICAL_REPLY, fake_server_module
from tutor_app.call.options import EndpointingOptions

if TYPE_CHECKING:
    from tutor_app.bench.outside import OutsideTurn

TARGETS = {"overhead_ms_p50": 400, "first_audio_vs_naive": 0.3, "idle_cpu_pct": 10}
REPLY = TYPICAL_REPLY
STAMPS = ("stt_done", "first_token", "first_sentence", "first_audio", "first_audible", "sentence_to_audio", "overhead")
LABELS = {"first_audio": "first audio (to device)", "first_audible": "first audible (voice2voice)",
          "sentence_to_audio": "first sentence -> audio", "overhead": "overhead (all but the LLM)"}
LLM_START_STAGES = ("stt", "emotion", "guardrail", "gate", "recall", "history", "prompt")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=int, default=6, help="utterances fed through the call")
    parser.add_argument("--max-clip-seconds", type=float, default=8.0, help="use shared clips up to this long")
    parser.add_argument("--data", metavar="DIR", default=None,
                        help="folder with speech/manifest.tsv (default: shared/data beside the checkout)")
    parser.add_argument("--first-token-ms", type=float, default=400.0, help="fake LLM: delay to the first token")
    parser.add_argument("--tokens-per-s", type=float, default=40.0, help="fake LLM: tokens per second")
    parser.add_argument("--idle-seconds", type=float, default=5.0, help="quiet period for the idle CPU figure")
    ends = EndpointingOptions()
    parser.add_argument("--early-stt-ms", type=int, default=None,
                        help=f"start STT this far into the closing silence (default: the app's, {ends.early_stt_ms}; "
                             "0 = off)")
    parser.add_argument("--judge-ms", type=int, default=None,
                        help=f"ask the end-of-turn judge this far into the closing silence (default: the app's, "
                             f"{ends.judge_ms}; 0 = at the {ends.check_ms} ms check)")
    parser.add_argument("--no-fading-stt", dest="fading_stt", action="store_const", const=False, default=None,
                        help="start STT only at the first silent frame, not already at a fading voiced one")
    parser.add_argument("--stt-streaming", action="store_true",
                        help="recognise while the learner speaks (speech.stt_streaming; default: the settings')")
    parser.add_argument("--per-turn", action="store_true",
                        help="also print each turn's stages (ms after the last voiced sample)")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import TutorError

    problem = _environment_problem()
    if problem:
        raise TutorError(f"bench call: {problem}")
    fakes = fake_server_module()
    clips = _clips(args)
    local = getattr(args, "llm", None) == "local"  # `tutor-app --llm local bench call`: the offline model
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPU cores, load average {load:.2f} (other work slows every number)")
    if local:
        print(f"tutor model: the local one (llm.local_model), no fake server; {args.turns} turns over "
              f"{len(clips)} clip(s)")
    else:
        print(f"fake LLM: first token {args.first_token_ms:.0f} ms, {args.tokens_per_s:.0f} tokens/s, "
              f"{len(REPLY.split())}-word replies; {args.turns} turns over {len(clips)} clip(s)")
    server_or_none = contextlib.nullcontext() if local else fakes.FakeAnthropicServer(
        timing=fakes.Timing.realistic(args.first_token_ms, args.tokens_per_s), default=fakes.Reply(REPLY))
    with server_or_none as server:
        if server is not None:
            os.environ["ANTHROPIC_BASE_URL"] = server.url
            os.environ["ANTHROPIC_API_KEY"] = fakes.FAKE_API_KEY
            app.settings.llm.backend = "anthropic"
        app.settings.llm.fallback_to_local = False
        app.settings.speech.audio_mode = "headset"  # as measured; null sinks look like speakers
        if args.stt_streaming:
            app.settings.speech.stt_streaming = True
        engine = _engine(app)
        live = _live(app, engine, clips, args)
        naive, out_latency, naive_stages = _naive(app, engine, clips, args)
    summary = _report(live.rows, naive, live.idle_cpu)
    summary.update(_report_outside(live.outside, args.turns, args.per_turn))
    summary["greeting_first_audio_ms"] = live.greeting_ms
    print("naive cascade stages p50 (ms): " + ", ".join(
        f"{k} {_pct(v, 0.5):.0f}" for k, v in naive_stages.items()))
    from tutor_app.speech.playback import PLAY_BLOCK_S

    # A pause or a barge-in drops what the sound system holds (speech/playback.py): the
    # tutor is silent a block after the decision; a device too slow to restart keeps its
    # buffer, and then the output latency comes on top.
    stop_ms = PLAY_BLOCK_S * 1000
    summary["barge_in_stop_ms_max"] = round(stop_ms, 1)
    print(f"barge-in: playback stops within one output block = {stop_ms:.0f} ms, the output dropped "
          f"({(PLAY_BLOCK_S + out_latency) * 1000:.0f} ms on a device too slow to restart; target 100)")
    summary["load_avg"] = round(load, 2)
    if args.json:
        print(json.dumps({"bench": "call", **summary}))
    return 0


# -- setup ---------------------------------------------------------------------------------
def _environment_problem() -> str | None:
    if not os.environ.get("PULSE_SERVER") or not os.environ.get("TUTOR_APP_VIRTUAL_AUDIO"):
        return ("needs the virtual sound card: run `source scripts/virtual-audio.sh` in this shell "
                "first (PulseAudio null sinks micsrc/spk)")
    if shutil.which("paplay") is None:
        return "paplay not found (apt-get install pulseaudio-utils)"
    return None


def _clips(args) -> list:
    import csv
    from pathlib import Path

    from tutor_app.bench.speech import default_data_dir
    from tutor_app.errors import TutorError

    data = Path(args.data) if args.data else default_data_dir()
    manifest = data / "speech" / "manifest.tsv"
    try:
        with manifest.open(encoding="utf-8", newline="") as handle:
            rows = list(csv.DictReader(handle, delimiter="\t"))
    except OSError as exc:
        raise TutorError(f"bench call: no speech clips at {manifest} ({exc.strerror}); pass --data DIR") from None
    paths = [data / "speech" / r["file"] for r in rows if float(r["duration_s"]) <= args.max_clip_seconds]
    if not paths:
        raise TutorError(f"bench call: no clip of at most {args.max_clip_seconds} s in {manifest}")
    return paths


def _engine(app):
    """The app's engine (calls run off the record: nothing stored), models loaded now."""
    app.emotion  # noqa: B018 - load outside the timed turns
    return app.engine


# -- the live call ------------------------------------------------------------------------
@dataclass
class LiveRun:
    rows: list[dict]  # per turn: the app's stamps (ms after the last voiced sample)
    idle_cpu: float
    greeting_ms: float | None
    outside: list[OutsideTurn]  # the same turns timed from the recording (bench/outside.py)


def _live(app, engine, clips, args) -> LiveRun:
    from tutor_app.bench.outside import CLIP_GAP_S, OutsideRecorder, voice_to_voice
    from tutor_app.call import events as ev
    from tutor_app.call.controller import CallController
    from tutor_app.call.options import frames

    done = threading.Event()
    greeted: list[ev.TutorTurnDone] = []
    greeting_done = threading.Event()

    def sink(event) -> None:
        if isinstance(event, ev.TutorTurnDone) and event.greeting:
            greeted.append(event)
            greeting_done.set()
        elif isinstance(event, ev.TutorTurnDone):
            done.set()

    options = None
    asked = {k: v for k, v in (("early_stt_ms", args.early_stt_ms), ("judge_ms", args.judge_ms),
                               ("fading_stt", args.fading_stt)) if v is not None}
    if asked:
        from dataclasses import replace

        from tutor_app.call.loop import LoopOptions
        from tutor_app.speech.sound_devices import list_devices, load_sounddevice

        options = LoopOptions.from_settings(app.settings, list_devices(load_sounddevice()), engine=engine)
        options = replace(options, endpointing=replace(options.endpointing, **asked))
    from tutor_app.startup import warm_service

    t0 = time.perf_counter()
    warm_service(app.tts)  # as the GUI does at start: the click then pays no voice load
    print(f"voice (Piper) load + warm-up before the call: {(time.perf_counter() - t0) * 1000:.0f} ms")
    greeting_ms: float | None = None
    controller = CallController(app, engine=engine, options=options, greet=True)
    controller.start_call(off_record=True, sink=sink)
    loop = controller.loop
    try:
        loop.ready.wait(120)
        if not greeting_done.wait(60):  # the learner speaks after the tutor's opening line
            print("the greeting did not end within 60 s", file=sys.stderr)
        greeting_ms = greeted[0].timings_ms.get("first_audio") if greeted else None
        print(f"start of call -> the greeting's first sample to the device: "
              f"{'none' if greeting_ms is None else f'{greeting_ms:.0f} ms'} (target 1500; voice warm)")
        loop.wait_frames(loop.frames_seen + 20, timeout=20)
        idle_cpu = _idle_cpu(loop, args.idle_seconds)
        with OutsideRecorder() as outside:
            for i in range(args.turns):
                done.clear()
                subprocess.run(["paplay", "--device=micsrc", str(clips[i % len(clips)])], check=True)
                if not done.wait(120):
                    print(f"turn {i + 1}: no reply within 120 s", file=sys.stderr)
                # The recording tells the clips apart by the silence between them: after a
                # short reply (the local model's), the next clip must not start sooner.
                loop.wait_frames(loop.frames_seen + frames(1000 * CLIP_GAP_S), timeout=CLIP_GAP_S * 3)
            timed = voice_to_voice(*outside.stop(), app.vad)
        results = list(loop.results)
        player = loop.speaker.player
        # A reply starts on a restarted output (speech/playback.py): its first sample is due
        # when handed, not behind the stream's latency, unless the device was too slow to restart.
        out_ms = 1000.0 * float(getattr(player, "start_latency_s", 0.0) or 0.0)
        print(f"output stream latency: {1000.0 * float(getattr(player, 'latency_s', 0.0) or 0.0):.1f} ms; "
              f"a reply's first sample waits {out_ms:.1f} ms of it (added to first audio for first audible; "
              f"{getattr(getattr(player, 'stats', None), 'fresh_starts', 0)} replies started on a restarted output)")
        print(f"the words of the tutor's turns started (retracted ones too) were asked at: {dict(loop.listener.guesses) or 'none'}")
    finally:
        controller.end_call()
    rows = []
    for result in results:
        t = result.timings_ms
        row = {k: t.get(k) for k in STAMPS[:4]}
        if None not in row.values():
            row["first_audible"] = round(t["first_audio"] + out_ms, 1)
            row["sentence_to_audio"] = round(t["first_audio"] - t["first_sentence"], 1)
            llm_start = sum(t.get(k, 0.0) for k in LLM_START_STAGES)
            # Everything but the LLM's own time to its first sentence.
            row["overhead"] = round(llm_start + t["first_audio"] - t["first_sentence"], 1)
            rows.append(row)
            if args.per_turn:
                print("turn " + ", ".join(f"{k} {row[k]:.0f}" for k in STAMPS[:5])
                      + ", before the model " + ", ".join(f"{k} {t.get(k, 0.0):.0f}" for k in LLM_START_STAGES))
    return LiveRun(rows, idle_cpu, greeting_ms, timed)


def _report_outside(timed: list[OutsideTurn], turns: int, per_turn: bool) -> dict:
    """Voice to voice as recorded outside the app (bench/outside.py); `turns`: clips played."""
    values = [t.voice_to_voice_ms for t in timed if t.voice_to_voice_ms is not None]
    p50, p90 = _pct(values, 0.5), _pct(values, 0.9)
    if per_turn:
        print("outside, per turn (ms): " + ", ".join("-" if t.voice_to_voice_ms is None else f"{t.voice_to_voice_ms:.0f}"
                                                     for t in timed))
    print(f"\nvoice to voice, recorded outside the app (the microphone's and the speaker's monitors on one "
          f"clock; last voiced sample -> first sample over -60 dBFS; target p50 <= 900, p90 <= 1200): "
          f"p50 {p50:.0f} / p90 {p90:.0f} ms over "
          f"{len(values)} turns{'' if len(timed) == turns else f' (the recording held {len(timed)} clips, not {turns})'}")
    return {"outside_ms_p50": p50, "outside_ms_p90": p90, "outside_turns": len(values)}


def _idle_cpu(loop, seconds: float) -> float:
    """% of one core used by this process while the call listens to silence."""
    from tutor_app.core.types import FRAME_SAMPLES, SAMPLE_RATE

    start_frames = loop.frames_seen
    cpu0, wall0 = time.process_time(), time.perf_counter()
    loop.wait_frames(start_frames + int(seconds * SAMPLE_RATE / FRAME_SAMPLES), timeout=seconds * 3)
    return 100.0 * (time.process_time() - cpu0) / max(1e-6, time.perf_counter() - wall0)


# -- the naive cascade -------------------------------------------------------------------
def _naive(app, engine, clips, args) -> tuple[list[float], float, dict[str, list[float]]]:
    """Full STT -> full LLM reply -> full TTS -> play; ms to the first sample out."""
    from tutor_app.speech.audiofile import load_audio
    from tutor_app.speech.playback import Player
    from tutor_app.speech.sound_devices import load_sounddevice, resolve_device

    sd = load_sounddevice()
    started = threading.Event()
    first: list[float] = []
    player = Player(sd, resolve_device(sd, app.settings.speech.output_device, "output"), app.tts.sample_rate)
    player.listen(lambda tag, t: (first.append(t), started.set()), None)
    player.start()
    out = []
    stages: dict[str, list[float]] = {"stt": [], "llm": [], "tts": [], "play": []}
    try:
        session = engine.start_call(None, off_record=True)
        for i in range(args.turns):
            clip = load_audio(clips[i % len(clips)])
            first.clear()
            started.clear()
            t0 = time.perf_counter()
            text = app.stt.transcribe(clip).text
            t1 = time.perf_counter()
            result = session.turn(text)
            t2 = time.perf_counter()
            audio = app.tts.synthesize_all(result.reply)
            t3 = time.perf_counter()
            player.play(audio, i)
            if started.wait(30):
                out.append(round((first[0] - t0) * 1000, 1))
                for name, a, b in (("stt", t0, t1), ("llm", t1, t2), ("tts", t2, t3), ("play", t3, first[0])):
                    stages[name].append((b - a) * 1000)
            while player.busy:
                time.sleep(0.05)  # let the reply finish before the next turn
        latency = player.latency_s
    finally:
        player.close()
    return out, latency, stages


# -- report ---------------------------------------------------------------------------------
def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(q * (len(values) - 1))))
    return values[k]


def _report(live: list[dict], naive: list[float], idle_cpu: float) -> dict:
    summary: dict[str, object] = {"turns": len(live)}
    print(f"\n{'ms after end of speech':<26}{'p50':>9}{'p95':>9}")
    for stamp in STAMPS:
        values = [row[stamp] for row in live]
        p50, p95 = _pct(values, 0.5), _pct(values, 0.95)
        summary[f"{stamp}_ms_p50"], summary[f"{stamp}_ms_p95"] = p50, p95
        label = LABELS.get(stamp, stamp)
        print(f"{label:<26}{p50:>9.0f}{p95:>9.0f}")
    n50, n95 = _pct(naive, 0.5), _pct(naive, 0.95)
    summary["naive_first_audio_ms_p50"], summary["naive_first_audio_ms_p95"] = n50, n95
    print(f"{'naive cascade first audio':<26}{n50:>9.0f}{n95:>9.0f}")
    ratio = summary["first_audio_ms_p50"] / n50 if naive and live else float("nan")
    summary["first_audio_vs_naive"] = round(ratio, 3)
    summary["idle_cpu_pct"] = round(idle_cpu, 1)
    print(f"\n{'target':<34}{'measured':>10}{'target':>10}")
    print(f"{'first audible p50, app stamps (ms)':<34}{summary['first_audible_ms_p50']:>10.0f}{'<= 900':>10}")
    print(f"{'overhead p50 (ms)':<34}{summary['overhead_ms_p50']:>10.0f}{'<= 400':>10}")
    print(f"{'first audio / naive cascade (p50)':<34}{ratio:>10.2f}{'<= 0.3':>10}")
    print(f"{'idle-listening CPU (% of a core)':<34}{idle_cpu:>10.1f}{'<= 10':>10}")
    if live and statistics.median([r["stt_done"] for r in live]) > 1500:
        print("note: STT dominates; a busy machine (see load average) slows Whisper most")
    return summary
