"""`tutor-app bench turns`: turn-taking through the real audio path.

Needs the virtual sound card (`source scripts/virtual-audio.sh`). The pause-clip set
(bench/pause_clips.py: sentences with a 0.6-2.0 s silence spliced in mid-sentence, and
complete short sentences; Piper at three speeds, espeak-ng voices, real recordings) is
played into the virtual microphone of a live call whose tutor model is the project's fake
Claude (first token after 400 ms, 40 tokens/s). The same run measures two rules:
- judge: the end-of-turn judge (Smart Turn + the words so far) after a short silence,
  waiting up to the thinking time through an unfinished turn, speculating on a finished one;
- vad: a fixed 600 ms silence ends the turn (the rule before, and the fallback).
Per rule: pause clips cut in two (the tutor got more than one learner turn from one clip),
and (judge) pause clips with a verdict before their end (in the pause, or a comma's)
that ends the turn - a cut on a machine quick enough to play the reply before the
learner goes on: the judge's own rate, whatever this machine's speed;
and voice-to-voice time in ms from the learner's last voiced sample (the captured frame,
on the audio clock) to the tutor's first sample handed to the output device plus what it
waits of that stream's latency (none when the output restarts for the reply: speech/playback.py). Also the judge's own decision time. Prints; asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from tutor_app.bench.common import EventLog, fake_server_module, percentile

REPLY = "Okay. Tell me more."
GOALS = "cut <= 1 in 10 pause clips; voice-to-voice p50 <= 900 ms, p90 <= 1200 ms; decision <= 50 ms"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--clips", metavar="DIR", default=None, help="pause-clip folder (made when missing)")
    parser.add_argument("--rules", default="judge,vad", help="comma-separated: judge, vad")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")
    parser.add_argument("--per-clip", action="store_true", help="also print one line per clip (turns, time) and the rule of each verdict in it")


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.bench.call import _environment_problem
    from tutor_app.bench.pause_clips import ensure_pause_clips
    from tutor_app.errors import TutorError

    problem = _environment_problem()
    if problem:
        raise TutorError(f"bench turns: {problem}")
    folder = Path(args.clips or Path(tempfile.gettempdir()) / "tutor-pause-clips")
    clips = ensure_pause_clips(folder, app.registry)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"machine: {os.cpu_count()} CPU cores, load average {load:.2f}; {len(clips)} clips in {folder}")
    print(f"fake LLM: first token 400 ms, 40 tokens/s; reply {REPLY!r}")
    summary: dict = {"bench": "turns", "load_avg": round(load, 2)}
    fakes = fake_server_module()
    app.settings.llm.backend = "anthropic"
    app.settings.llm.fallback_to_local = False
    app.settings.speech.audio_mode = "headset"  # turn-taking alone, no loopback here
    with fakes.FakeAnthropicServer(timing=fakes.Timing.realistic(400, 40), default=fakes.Reply(REPLY)) as server:
        os.environ["ANTHROPIC_BASE_URL"] = server.url
        os.environ["ANTHROPIC_API_KEY"] = fakes.FAKE_API_KEY
        for rule in [r.strip() for r in args.rules.split(",") if r.strip()]:
            summary[rule] = _rule(app, folder, clips, rule, per_clip=args.per_clip)
    print(f"goals: {GOALS}")
    if args.json:
        print(json.dumps(summary))
    return 0


def _rule(app, folder: Path, clips, rule: str, per_clip: bool = False) -> dict:
    from tutor_app.call import events as ev
    from tutor_app.call.controller import CallController

    judge = app.end_of_turn if rule == "judge" else False
    if rule == "judge" and judge is None:
        print("judge: the end-of-turn model did not load; skipped")
        return {}
    decisions: list[float] = []
    reasons: list[str] = []  # each verdict's rule, in order (never the learner's words)
    ending: list[bool] = []  # each verdict: it ends the turn (complete, or likely: after the sentence wait)
    if judge:
        judge = _Timed(judge, decisions, reasons, ending)

    log = EventLog()
    controller = CallController(app, judge=judge)
    controller.start_call(off_record=True, sink=log)
    loop = controller.loop
    cut = pauses = risky = 0
    v2v: list[float] = []
    by_kind: dict[str, list[float]] = {"finished": [], "pause": []}
    try:
        loop.ready.wait(120)
        loop.wait_frames(loop.frames_seen + 20, timeout=20)
        # What a reply's first sample waits once handed: nothing on an output restarted for it.
        latency_ms = 1000 * float(getattr(loop.speaker.player, "start_latency_s", 0.0) or 0.0)
        for clip in clips:
            before_utt = len([u for u in log.of(ev.UserUtterance) if u.text])
            before_reasons = len(reasons)
            before_done = len(log.of(ev.TutorTurnDone))
            subprocess.run(["paplay", "--device=micsrc", str(folder / clip.file)], check=True, timeout=60)
            log.wait(lambda: len(log.of(ev.TutorTurnDone)) > before_done, 60)
            # Room for a late second half to show up as its own turn (counted in frames).
            loop.wait_frames(loop.frames_seen + 120, timeout=30)
            log.wait_answered(60)
            turns = len([u for u in log.of(ev.UserUtterance) if u.text]) - before_utt
            if clip.kind == "pause":
                pauses += 1
                cut += turns > 1
                # A verdict before the clip's last one was asked before its end (in the pause, or
                # a comma's): one that ends the turn there is a cut wherever the reply plays
                # before the learner goes on (a quicker machine, a longer pause), here or not.
                risky += any(ending[before_reasons:-1])
            done = log.of(ev.TutorTurnDone)[before_done:]
            if done and turns == 1 and "first_audio" in done[-1].timings_ms:
                v2v.append(done[-1].timings_ms["first_audio"] + latency_ms)
                by_kind["pause" if clip.kind == "pause" else "finished"].append(v2v[-1])
            if per_clip:  # ids, voices and pause lengths only: the clip texts are in the manifest
                timed = f"{v2v[-1]:.0f} ms" if done and turns == 1 and "first_audio" in done[-1].timings_ms else "-"
                print(f"  {rule} {clip.id:20s} {clip.voice:28s} pause {clip.pause_seconds:4.2f} s: "
                      f"{turns} turn(s), voice-to-voice {timed}; ends so far {dict(loop.listener.ends)}")
                for reason in reasons[before_reasons:]:
                    print(f"    verdict: {reason}")
    finally:
        controller.end_call()
    row = {"pause_clips": pauses, "cut": cut, "ended_in_pause": risky, "v2v_p50_ms": round(statistics.median(v2v), 0) if v2v else None,
           "v2v_p90_ms": round(percentile(v2v, 90), 0) if v2v else None, "turns_timed": len(v2v),
           "decision_p50_ms": round(statistics.median(decisions), 1) if decisions else None,
           "ends": dict(loop.listener.ends), "guesses": dict(loop.listener.guesses)}
    for kind, values in by_kind.items():  # finished sentences vs sentences with a pause inside
        row[f"{kind}_v2v_p50_ms"] = round(statistics.median(values), 0) if values else None
        row[f"{kind}_turns"] = len(values)
    print(f"{rule:6s} cut {cut} of {pauses} pause clips; voice-to-voice p50 {row['v2v_p50_ms']} ms, "
          f"p90 {row['v2v_p90_ms']} ms over {len(v2v)} turns"
          + (f"; decision p50 {row['decision_p50_ms']} ms" if decisions else "") + f"; ends {row['ends']}; words of the turns started asked at {row['guesses']}")
    if judge:
        print(f"{'':6s} {risky} of {pauses} pause clips had a verdict before their end that ends the turn "
              "(a cut wherever the reply plays before the learner goes on)")
    print(f"{'':6s} p50 of finished sentences {row['finished_v2v_p50_ms']} ms ({row['finished_turns']} turns), "
          f"of paused ones {row['pause_v2v_p50_ms']} ms ({row['pause_turns']} turns)")
    return row


class _Timed:
    """The judge, its decisions timed: the audio model's time plus the words' rule (the call
    hears the audio while Whisper decodes, as with the app's own judge)."""

    def __init__(self, judge, decisions: list[float], reasons: list[str], ending: list[bool]) -> None:
        self.judge, self.decisions, self.reasons, self.ending = judge, decisions, reasons, ending

    def __call__(self, audio, text):
        return self.decide(self.hear(audio), text)

    def hear(self, audio):
        t0 = time.perf_counter()
        probability = self.judge.hear(audio)
        self._last = (time.perf_counter() - t0) * 1000
        return probability

    def decide(self, probability, text):
        t0 = time.perf_counter()
        verdict = self.judge.decide(probability, text)
        self.decisions.append(getattr(self, "_last", 0.0) + (time.perf_counter() - t0) * 1000)
        self.reasons.append(verdict.reason + (" (likely)" if verdict.likely else ""))
        self.ending.append(bool(verdict.complete or verdict.likely))
        return verdict
