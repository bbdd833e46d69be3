"""`tutor-app bench echo`: the echo canceller on a laptop-like sound card.

Needs the virtual sound card (`source scripts/virtual-audio.sh`). The virtual speaker is
looped back into the virtual microphone (bench/loopback.py) at 0 / -10 dB and 30 / 120 ms.
1. Signal path (the app's Player and Capture with the canceller, a Piper reply as the far
   end): echo return loss enhancement over the tutor's speech (dB, the canceller's input
   vs output energy while the far end is loud), VAD speech frames in the raw vs cleaned
   microphone, and the canceller's CPU time in % of one core.
2. Live calls in the default speaker mode on the 0 dB / 30 ms loopback, fake tutor model:
   residual-echo false turns (a learner turn or an interruption the learner did not make)
   over N replies (with `--stall-ms`: the sound server stopped that long about a second
   into each reply - the fault behind a playback underrun), and interruption times, of two
   kinds reported apart: `--barge-ins` about a second into a reply (the learner takes the
   floor from a tutor who is talking: the goal's figure), and `--collisions` as the tutor
   starts a reply (both start at once). Each is timed from the learner's first voiced
   sample as the listener found it - the confirmed speech start minus the 250 ms of voice
   it takes to confirm, minus the start AEC3 hid before it (the listener's "confirmed"
   line) - to the tutor's volume ducked, to playback stopped (the first of the pause
   message - the player holds, silent - and the interruption message - the player cleared;
   PortAudio's output latency comes on top) and to the tutor's turn ended (the
   interruption message), and how well the words of each interruption were heard: WER
   against the text, next to the same clip transcribed straight from its file. At a
   reply's start the echo path is not fitted yet, so the listener may not find the start
   AEC3 hid: those times can be short of the truth. Each interruption's line says what
   stopped the tutor: its sound (the floor: a pause first) or its words, with the
   listener's own account (its debug lines, caught in memory: the log file and the timing
   are untouched). The same interruptions are also timed outside the app (bench/outside.py):
   the microphone's feed and the speaker recorded on one clock, from the clip's first
   voiced sample to the tutor's silence - what the learner hears, every buffer included.
3. Backchannels over the tutor (same call): Piper's "Mm-hmm.", "Yeah.", "Okay.", "Right."
   and a synthesised cough, each played ~1 s into a reply, `--backchannels` rounds: false
   stops (the tutor's playback paused or stopped while that clip's reply played), of which
   resumed (paused, then playing on), replies cut (interrupted), and the stop times of the
   false stops (from the same estimated first voiced sample).
Prints numbers next to the goals; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from tutor_app.bench.common import TYPICAL_REPLY, EventLog, fake_server_module
from tutor_app.bench.echo_trace import ListenerLines, missed_line, time_outside

CONFIGS = ((30, 0.0), (120, 0.0), (30, -10.0), (120, -10.0))
GOALS = {"erle_db": ">= 25", "false_turns_per_100": "0", "barge_in_stop_ms_p50": "<= 400",
         "backchannel_false_stops": "<= 1 in 10", "cpu_pct": "<= 5"}
LEARNER = "Last weekend I went hiking in the mountains near Seoul."
BARGE = "Sorry, can I ask you something about the interview questions?"
BACKCHANNELS = ("Mm-hmm.", "Yeah.", "Okay.", "Right.", "cough")  # "cough": a noise burst, synthesised


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--replies", type=int, default=10, help="tutor replies for the false-turn count")
    parser.add_argument("--barge-ins", type=int, default=5,
                        help="interruptions timed, each about a second into a reply (the goal's figure)")
    parser.add_argument("--collisions", type=int, default=2,
                        help="interruptions timed as the tutor starts a reply (AEC3 may hide their start)")
    parser.add_argument("--backchannels", type=int, default=2,
                        help=f"rounds of backchannel clips over the tutor ({len(BACKCHANNELS)} clips a round)")
    parser.add_argument("--stall-ms", type=int, default=0,
                        help="stop the virtual sound card's server this long ~1 s into each counted reply "
                             "(an audio-system stall: underruns, a shifted echo)")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.bench.call import _environment_problem
    from tutor_app.errors import TutorError

    problem = _environment_problem() or ("--stall-ms must be 0 or more" if args.stall_ms < 0 else None)
    if problem:
        raise TutorError(f"bench echo: {problem}")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPU cores, load average {load:.2f}")
    summary: dict = {"bench": "echo", "load_avg": round(load, 2), "paths": []}
    reply = app.tts.synthesize_all(TYPICAL_REPLY)
    print("loopback        ERLE dB   VAD speech frames raw -> cleaned   canceller CPU % of a core   stalls")
    for latency, gain in CONFIGS:
        row = _signal_path(app, reply, latency, gain)
        summary["paths"].append(row)
        print(f"{gain:+5.0f} dB {latency:4d} ms  {row['erle_db']:7.1f}   {row['vad_raw']:5d} -> {row['vad_clean']:<5d}"
              f"                  {row['cpu_pct']:.2f}                      {row['stalls']}")
    summary.update(_calls(app, args))
    stalled = f", a {args.stall_ms} ms stall of the sound server in each" if args.stall_ms > 0 else ""
    print(f"false turns: {summary['false_turns']} in {summary['replies']} replies{stalled} "
          f"({summary['false_turns_per_100']:.1f} per 100; goal 0)")
    for key, kind, n in (("barge_in", "mid-reply", args.barge_ins), ("collision", "at the reply's start", args.collisions)):
        if n > 0:
            _print_interruptions(summary, key, kind)
    if args.backchannels > 0:
        per = ", ".join(f"{k} {v}" for k, v in summary["backchannel_stops_by_clip"].items())
        print(f"backchannels over the tutor: {summary['backchannel_false_stops']} false stops in "
              f"{summary['backchannel_clips']} clips ({per}; {summary['backchannel_lost']} not played: no reply), "
              f"{summary['backchannel_resumes']} resumed, "
              f"{summary['backchannel_cut']} replies cut ({summary['backchannel_stopped_before']} stopped before "
              f"the clip was played), {summary['backchannel_kept']} kept as backchannels; "
              f"stop ms p50 {summary['backchannel_stop_ms_p50']:.0f}")
        for line in summary["backchannel_trace"]:
            print(f"  {'' if line.startswith('before ') else 'false stop: '}{line}")
    print("goals: " + ", ".join(f"{k} {v}" for k, v in GOALS.items()))
    if args.json:
        print(json.dumps(summary))
    return 0


def _signal_path(app, reply, latency_ms: int, gain_db: float) -> dict:
    from tutor_app.bench.loopback import Loopback

    with Loopback(latency_ms, gain_db):
        row = signal_path(app, reply)
    return {"latency_ms": latency_ms, "gain_db": gain_db, **row}


def signal_path(app, reply) -> dict:
    """Play `reply` through the app's Player with the far-end tap while the Capture reads
    the (looped-back) microphone through the canceller -> ERLE, VAD speech frames raw and
    cleaned, canceller CPU %, the raw / cleaned microphone RMS over the reply, and the
    stalls of the sound card meanwhile (output underflows, input lost or dropped: after
    one the canceller converges again, and the ERLE of that run is low for that reason)."""
    import numpy as np

    from tutor_app.speech.aec import AecOptions, EchoCanceller, FarEndTap
    from tutor_app.speech.audio_io import Capture
    from tutor_app.speech.playback import Player
    from tutor_app.speech.sound_devices import load_sounddevice

    sd = load_sounddevice()
    tap = FarEndTap()
    aec = EchoCanceller.load(AecOptions(), tap)
    raw: list = []
    cleaned: list = []
    capture = Capture(sd, None, echo=aec)
    capture.start()
    player = Player(sd, None, app.tts.sample_rate, far_tap=tap)
    player.start()
    try:
        # As in a call, where both streams run from its start: the reply plays once the
        # canceller pairs the two (its timelines settle over the first ~0.5 s of each).
        ready = time.monotonic() + 5.0
        while not aec.paired and time.monotonic() < ready:
            capture.read(0.1)
        player.play(reply, "reply")
        end = time.monotonic() + len(reply) / app.tts.sample_rate + 1.0
        while time.monotonic() < end:
            item = capture.read(0.1)
            if item is not None:
                cleaned.append(item.samples)
                raw.append(item.raw)
        # Counted before the streams close: closing may itself run the device dry.
        stalls = player.stats.underflows + capture.stats.overflows + capture.stats.dropped
    finally:
        player.close()
        capture.stop()
    vad = app.vad
    counts, levels = [], []
    for chunks in (raw, cleaned):
        audio = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)
        counts.append(int(np.sum(vad.frame_probabilities(audio) >= 0.5)))
        levels.append(float(np.sqrt(np.mean(audio * audio))) if audio.size else 0.0)
    seconds = aec.frames / 100
    return {"erle_db": round(aec.erle_db or 0.0, 1), "settled_erle_db": round(aec.settled_erle_db or 0.0, 1),
            "vad_raw": counts[0], "vad_clean": counts[1],
            "rms_raw": levels[0], "rms_clean": levels[1], "stalls": stalls,
            "cpu_pct": round(100 * aec.cpu_s / seconds, 2) if seconds else 0.0}


def _print_interruptions(summary: dict, key: str, kind: str) -> None:
    def get(name: str):
        return summary[f"{key}_{name}"]

    print(f"interruptions {kind}, ms from the learner's first voiced sample: ducked p50 {get('duck_ms_p50'):.0f}, "
          f"playback stopped p50 {get('stop_ms_p50'):.0f} / max {get('stop_ms_max'):.0f}, "
          f"turn ended p50 {get('end_ms_p50'):.0f} ({get('count')} interruptions, {get('missed')} missed)")
    print(f"  outside (one recording of the microphone's feed and the speaker): playback silent p50 "
          f"{get('outside_ms_p50'):.0f} / max {get('outside_ms_max'):.0f} ms after the learner's first voiced "
          f"sample ({len(get('outside_ms'))} of {get('count') + get('missed')}: "
          + ", ".join(f"{v:.0f}" for v in get("outside_ms")) + ")")
    for n, line in enumerate(get("trace"), 1):
        print(f"  interruption {n}: {line}")
    print(f"  words heard: WER p50 {get('wer_p50'):.3f} / max {get('wer_max'):.3f} "
          f"(the clip from its file: {get('wer_clean'):.3f})")


def _calls(app, args) -> dict:
    from tutor_app.bench.loopback import Loopback
    from tutor_app.bench.outside import OutsideRecorder
    from tutor_app.call import events as ev

    fakes = fake_server_module()
    learner = _wav(app, LEARNER, "learner")
    barge = _wav(app, BARGE, "barge")
    app.settings.speech.audio_mode = "speaker"
    app.settings.llm.backend = "anthropic"
    app.settings.llm.fallback_to_local = False
    false_turns = 0
    stall = _Stall(args.stall_ms) if args.stall_ms > 0 else None
    with fakes.FakeAnthropicServer(timing=fakes.Timing.realistic(400, 40), default=fakes.Reply(TYPICAL_REPLY)) as server:
        os.environ["ANTHROPIC_BASE_URL"] = server.url
        os.environ["ANTHROPIC_API_KEY"] = fakes.FAKE_API_KEY
        with Loopback(30, 0.0), ListenerLines() as lines:
            controller, events, stamps = _start(app)
            try:
                for n in range(1, args.replies + 1):
                    count = len(events.of(ev.TutorTurnDone))
                    _play(learner)
                    if stall is not None:
                        events.wait_kind(ev.TutorSentence, len(events.of(ev.TutorSentence)) + 1, timeout=120)
                        controller.loop.wait_frames(controller.loop.frames_seen + 31, timeout=30)  # ~1 s in
                        stall()
                    events.wait_kind(ev.TutorTurnDone, count + 1, timeout=120)
                    controller.loop.wait_frames(controller.loop.frames_seen + 47, timeout=30)  # 1.5 s of room
                    done = events.of(ev.TutorTurnDone)
                    said = [u for u in events.of(ev.UserUtterance) if u.text]
                    false_turns = max(len(said) - n, 0) + sum(d.interrupted for d in done)
                rounds = (("mid-reply", args.barge_ins), ("at the start", args.collisions))
                with OutsideRecorder() as outside:
                    timed = {kind: _interruptions(n, kind, controller, events, stamps, learner, barge, lines)
                             for kind, n in rounds}
                    recording = outside.stop()
                time_outside(recording, barge, rounds, timed, app)
                backchannels = _backchannels(app, args.backchannels, controller, events, stamps, learner, lines)
            finally:
                controller.end_call()
    replies = max(1, args.replies)
    mid, start = timed["mid-reply"], timed["at the start"]
    return {"replies": replies, "stall_ms": args.stall_ms, "false_turns": false_turns,
            "false_turns_per_100": 100 * false_turns / replies,
            **{f"barge_in_{k}": v for k, v in _timing(mid, barge, app).items()},
            **{f"collision_{k}": v for k, v in _timing(start, barge, app).items()},
            **backchannels}


def _interruptions(n: int, kind: str, controller, events, stamps, learner, barge, lines: ListenerLines) -> dict:
    """`n` times: the learner's turn, then the interruption clip over the tutor's reply -
    about a second into it ("mid-reply"), or as soon as its first sentence is ready, i.e. as
    the tutor starts to speak ("at the start"). Each is timed from the learner's first voiced
    sample as the listener found it: the confirmed start minus the 250 ms of voice it took
    to confirm, minus the start AEC3 hid before it (the listener's "confirmed" line)."""
    from tutor_app.call import events as ev

    out: dict = {"duck_ms": [], "stop_ms": [], "end_ms": [], "missed": 0, "texts": [], "trace": []}
    for _ in range(n):
        # The tutor's answer to the last interruption may still be playing: the learner's
        # next turn over it would be timed as this round's interruption.
        events.wait_answered(60)
        count = len(events.of(ev.TutorTurnDone))
        stamps.clear()
        _play(learner)
        events.wait_kind(ev.TutorSentence, len(events.of(ev.TutorSentence)) + 1, timeout=120)
        if kind == "mid-reply":
            controller.loop.wait_frames(controller.loop.frames_seen + 31, timeout=30)  # ~1 s into the reply
        lines.clear()
        _play(barge)
        try:
            events.wait_kind(ev.TutorTurnDone, count + 2, timeout=60)
        except TimeoutError:  # not heard (an audio stall gated the microphone): missed
            out["missed"] += 1
            out["trace"].append(missed_line("no turn ended within 60 s", stamps, lines))
            continue
        out["texts"].append([u.text for u in events.of(ev.UserUtterance) if u.text][-1])
        if "interrupt" not in stamps or "started" not in stamps:
            out["missed"] += 1
            out["trace"].append(missed_line("the turn ended without an interruption", stamps, lines))
            continue
        first_voice = stamps["started"] - 0.25 - lines.hidden_ms() / 1000
        stopped = min(stamps["interrupt"], stamps.get("pause", stamps["interrupt"]))
        if stopped < first_voice:  # stopped before the learner spoke: not this clip's doing
            out["missed"] += 1
            out["trace"].append(f"stopped {(stopped - first_voice) * 1000:.0f} ms before the learner's first "
                                "voiced sample: counted as missed; " + " | ".join(lines.said))
            continue
        out["stop_ms"].append((stopped - first_voice) * 1000)
        out["end_ms"].append((stamps["interrupt"] - first_voice) * 1000)
        out["duck_ms"].append((stamps.get("duck", stopped) - first_voice) * 1000)
        how = "its sound (paused first)" if "pause" in stamps else "its words"
        out["trace"].append(f"stopped {out['stop_ms'][-1]:.0f} ms by {how}; " + " | ".join(lines.said))
    return out


def _timing(out: dict, barge, app) -> dict:
    """The p50s of one kind of interruption (`_interruptions`), and how well its words were heard."""
    from tutor_app.speech.wer import wer

    def p50(values: list[float]) -> float:
        return statistics.median(values) if values else float("nan")

    wers = [wer(BARGE, text) for text in out["texts"]]
    outside = out.get("outside_ms", [])
    return {"count": len(out["stop_ms"]), "missed": out["missed"], "duck_ms_p50": p50(out["duck_ms"]),
            "outside_ms": outside, "outside_ms_p50": p50(outside), "outside_ms_max": max(outside, default=float("nan")),
            "stop_ms_p50": p50(out["stop_ms"]), "stop_ms_max": max(out["stop_ms"], default=float("nan")),
            "end_ms_p50": p50(out["end_ms"]), "wer_p50": p50(wers), "wer_max": max(wers, default=float("nan")),
            "wer_clean": wer(BARGE, app.stt.transcribe(barge).text) if out["texts"] else float("nan"),
            "trace": out["trace"]}


def _backchannels(app, rounds: int, controller, events, stamps, learner, lines: ListenerLines) -> dict:
    """Each backchannel clip ~1 s into a reply, `rounds` times: was the tutor stopped
    (paused or cut), did it resume, was its reply cut, was the clip kept; for each stop,
    the listener's account (`lines`)."""
    from tutor_app.call import events as ev

    clips = {name: _cough(app) if name == "cough" else _wav(app, name, name.strip(".").lower())
             for name in BACKCHANNELS}
    by_clip = {name: 0 for name in BACKCHANNELS}
    stops, resumes, cut, kept, lost, early, stop_ms, trace = 0, 0, 0, 0, 0, 0, [], []
    for _ in range(rounds):
        for name, clip in clips.items():
            count = len(events.of(ev.TutorTurnDone))
            stamps.clear()  # what the last clip did is counted: this round's reply starts clean
            lines.clear()
            _play(learner)
            try:
                events.wait_kind(ev.TutorSentence, len(events.of(ev.TutorSentence)) + 1, timeout=30)
            except TimeoutError:  # the learner's turn was not heard (an audio stall under load): no reply to test
                lost += 1
                controller.loop.wait_frames(controller.loop.frames_seen + 94, timeout=30)
                continue
            controller.loop.wait_frames(controller.loop.frames_seen + 31, timeout=30)  # ~1 s into the reply
            if "interrupt" in stamps or "pause" in stamps:
                # Stopped before the clip was played (its own echo, the learner's turn going
                # on): not the backchannel's doing, but a fault of its own - counted apart.
                early += 1
                trace.append(f"before {name}: {'cut' if 'interrupt' in stamps else 'paused'} "
                             "before the clip was played; " + " | ".join(lines.said))
            stamps.clear()
            lines.clear()
            _play(clip)
            events.wait_kind(ev.TutorTurnDone, count + 1, timeout=120)
            controller.loop.wait_frames(controller.loop.frames_seen + 47, timeout=30)  # 1.5 s of room
            done = events.of(ev.TutorTurnDone)[-1]
            stopped = [stamps[k] for k in ("pause", "interrupt") if k in stamps]
            if stopped:
                stops += 1
                by_clip[name] += 1
                if "started" in stamps:
                    stop_ms.append((min(stopped) - stamps["started"] + 0.25) * 1000)
                how = "paused" if "pause" in stamps else "cut"
                trace.append(f"{name} {how}{' (no speech over the tutor started)' if 'started' not in stamps else ''}; "
                             + " | ".join(lines.said))
            resumes += int(stamps.get("resumes", 0))
            cut += int(done.interrupted)
            kept += len(done.backchannels)
    return {"backchannel_clips": rounds * len(clips) - lost, "backchannel_lost": lost, "backchannel_false_stops": stops,
            "backchannel_stops_by_clip": by_clip, "backchannel_resumes": resumes, "backchannel_cut": cut,
            "backchannel_kept": kept, "backchannel_stopped_before": early, "backchannel_stop_ms_p50": statistics.median(stop_ms) if stop_ms else float("nan"),
            "backchannel_trace": trace}


def _cough(app):
    """A cough-like sound: two bursts of band-limited noise, a sharp onset, a fast decay
    (about as loud as Piper's speech), at the TTS rate, in a WAV."""
    import tempfile
    from pathlib import Path

    import numpy as np

    from tutor_app.speech.tts import write_wav

    rate = app.tts.sample_rate
    rng = np.random.default_rng(7)
    parts = []
    for seconds, gap in ((0.16, 0.08), (0.22, 0.2)):
        n = int(seconds * rate)
        noise = np.convolve(rng.standard_normal(n), np.ones(6) / 6, mode="same")  # duller than white
        envelope = np.minimum(1.0, np.arange(n) / (0.01 * rate)) * np.exp(-np.arange(n) / (0.07 * rate))
        parts += [0.35 * noise / np.max(np.abs(noise)) * envelope, np.zeros(int(gap * rate))]
    path = Path(tempfile.mkdtemp(prefix="tutor-bench-")) / "cough.wav"
    write_wav(path, np.concatenate([np.zeros(int(0.1 * rate)), *parts]).astype(np.float32), rate)
    return path


class _Stall:
    """Stops the virtual sound card's PulseAudio daemon (scripts/virtual-audio.sh writes its
    pid) for `ms`: every stream stalls at once, as in an audio-system hiccup."""

    def __init__(self, ms: int) -> None:
        from pathlib import Path

        from tutor_app.errors import TutorError

        pid_file = Path(os.environ.get("XDG_RUNTIME_DIR", "")) / "pulse" / "pid"
        try:
            self.pid = int(pid_file.read_text().split()[0])
        except (OSError, ValueError, IndexError):
            raise TutorError(f"bench echo --stall-ms: no PulseAudio daemon pid in {pid_file} "
                             "(start the virtual sound card with scripts/virtual-audio.sh)") from None
        self.ms = ms

    def __call__(self) -> None:
        import signal

        os.kill(self.pid, signal.SIGSTOP)
        try:
            time.sleep(self.ms / 1000)  # the fault's length (nothing to wait for: the server is stopped)
        finally:
            os.kill(self.pid, signal.SIGCONT)


def _start(app):
    from tutor_app.call import events as ev
    from tutor_app.call.controller import CallController

    stamps: dict[str, float] = {}
    events = EventLog()

    def sink(event) -> None:
        if isinstance(event, ev.SpeechStarted) and controller.loop is not None and controller.loop.tutor_audible():
            stamps.setdefault("started", time.perf_counter())
        events(event)

    controller = CallController(app)
    controller.start_call(off_record=True, sink=sink)
    loop = controller.loop
    interrupt, duck = loop.interrupt, loop.duck

    def timed_interrupt() -> None:
        stamps.setdefault("interrupt", time.perf_counter())
        interrupt()

    pause, resume = loop.pause, loop.resume

    def timed_pause() -> None:
        stamps.setdefault("pause", time.perf_counter())
        pause()

    def timed_resume() -> None:
        stamps["resumes"] = stamps.get("resumes", 0) + 1
        resume()

    def timed_duck(on: bool) -> None:
        if on:
            stamps.setdefault("duck", time.perf_counter())
        duck(on)

    loop.interrupt, loop.duck = timed_interrupt, timed_duck  # type: ignore[method-assign]
    loop.pause, loop.resume = timed_pause, timed_resume  # type: ignore[method-assign]
    loop.ready.wait(60)
    loop.wait_frames(loop.frames_seen + 10, timeout=10)
    return controller, events, stamps


def _wav(app, text: str, name: str):
    import tempfile
    from pathlib import Path

    from tutor_app.speech.tts import write_wav

    path = Path(tempfile.mkdtemp(prefix="tutor-bench-")) / f"{name}.wav"
    write_wav(path, app.tts.synthesize_all(text), app.tts.sample_rate)
    return path


def _play(path) -> None:
    import subprocess

    subprocess.run(["paplay", "--device=micsrc", str(path)], check=True, timeout=60)
