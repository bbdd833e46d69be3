"""`tutor-app call --live`: a voice call on the sound devices, from the terminal.

Prints the transcript as it goes. Ctrl-C, or saying "goodbye" (once the tutor has
answered it), ends the call; then the call-end work (extraction, report) runs and the
report is summarised. `--max-turns` / `--max-seconds` end it for scripted use.
"""
from __future__ import annotations

import argparse
import re
import sys
import threading
import time
from typing import Any

from tutor_app.commands import print_json

GOODBYE = re.compile(r"\b(good\s*-?\s*bye|bye[\s-]*bye|bye now)\b", re.IGNORECASE)


def add_live_options(p: argparse.ArgumentParser) -> None:
    """Options only `--live` uses (called from commands/call.py's parser)."""
    g = p.add_argument_group("live call")
    g.add_argument("--max-turns", type=int, default=0, metavar="N", help="end after N tutor turns")
    g.add_argument("--max-seconds", type=float, default=0.0, metavar="S", help="end after S seconds")
    g.add_argument("--audio-mode", choices=("headset", "speaker", "gated"), default=None,
                   help="headset: full duplex; speaker: echo cancelled, full duplex; gated: microphone "
                        "muted while the tutor speaks (default: settings)")
    g.add_argument("--no-barge-in", action="store_true", help="never interrupt the tutor")
    g.add_argument("--list-devices", action="store_true", help="list sound devices and exit")


def run_live(args: argparse.Namespace, app) -> int:
    from tutor_app.call import events as ev
    from tutor_app.call.controller import CallController
    from tutor_app.speech.sound_devices import list_devices, load_sounddevice, resolve_device

    sd = load_sounddevice()
    if getattr(args, "list_devices", False):
        return _print_devices(list_devices(sd), getattr(args, "json", False))
    speech = app.settings.speech
    if getattr(args, "audio_mode", None):
        speech.audio_mode = args.audio_mode
    if getattr(args, "no_barge_in", False):
        speech.barge_in = False
    resolve_device(sd, speech.input_device, "input")  # no microphone: one clear line, exit 1
    as_json = bool(getattr(args, "json", False))
    max_turns = int(getattr(args, "max_turns", 0) or 0)
    max_seconds = float(getattr(args, "max_seconds", 0.0) or 0.0)

    stop = threading.Event()
    state: dict[str, Any] = {"turns": 0, "user": "", "seconds": None, "goodbye": False, "report": None}

    def say(line: str) -> None:
        if not as_json:
            print(line, flush=True)

    def sink(event) -> None:  # worker threads; never blocks
        if isinstance(event, ev.UserUtterance):
            state.update(user=event.text, seconds=event.seconds, goodbye=bool(GOODBYE.search(event.text)))
            say(f"you:   {event.text}")
        elif isinstance(event, ev.TutorSentence):
            say(f"tutor: {event.text}")
        elif isinstance(event, ev.TutorTurnDone) and event.greeting:
            if event.interrupted:
                say("       (interrupted)")  # the opening line is no turn: not counted, no JSON line
        elif isinstance(event, ev.TutorTurnDone):
            state["turns"] += 1
            if event.interrupted:
                say("       (interrupted)")
            if as_json:
                line = {"user_text": state["user"], "reply": event.reply, "interrupted": event.interrupted,
                        "speech_seconds": state["seconds"], "guardrail": event.guardrail,
                        "timings_ms": event.timings_ms}
                if event.not_heard:
                    line["not_understood"] = True  # the "didn't catch that" line (tutor/heard.py)
                print_json(line)
            if state["goodbye"] or (max_turns and state["turns"] >= max_turns):
                stop.set()
        elif isinstance(event, ev.Problem):
            print(f"tutor-app: {event.message}", file=sys.stderr, flush=True)
        elif isinstance(event, ev.CallAborted):  # a bug ended the call: its end follows, then the report
            print(f"tutor-app: {event.message}", file=sys.stderr, flush=True)
            stop.set()
        elif isinstance(event, ev.StateChanged) and event.state == ev.PAUSED:
            say("       (paused: waiting for the microphone)")
        elif isinstance(event, ev.ReportReady):
            state["report"] = event.report

    app.recover_calls()
    # The cloud client's SDK import (seconds) runs while the voice loads, so the greeting's
    # follow-up question can come in time; a local model is not loaded here.
    threading.Thread(target=_warm_cloud, args=(app,), name="warm-cloud", daemon=True).start()
    controller = CallController(app, sd=sd, greet=True)
    session_id = controller.start_call(off_record=bool(getattr(args, "off_record", False)), sink=sink)
    say(f"call {session_id}: speak when you are ready (Ctrl-C or \"goodbye\" ends the call)")
    started = time.monotonic()
    try:
        while not stop.wait(0.2):
            if max_seconds and time.monotonic() - started >= max_seconds:
                break
    except KeyboardInterrupt:
        say("")
    say("ending the call ...")
    controller.end_call()
    try:
        if controller.end_work is not None:
            controller.end_work.join()  # extraction + report; ReportReady comes before it ends
    except KeyboardInterrupt:
        pass
    report = state["report"] or {}
    if as_json:
        print_json({"session_id": session_id, "turns": state["turns"], "report": report})
    elif report:
        say(_summary(report))
    return 0


def _summary(report: dict) -> str:
    keys = ("turns", "duration_seconds", "speaking_seconds", "words", "words_per_minute")
    parts = [f"{k.replace('_', ' ')}: {round(report[k], 1) if isinstance(report[k], float) else report[k]}"
             for k in keys if k in report]
    return "call report: " + ("; ".join(parts) if parts else "saved")


def _print_devices(devices, as_json: bool) -> int:
    if not devices:
        print("no sound devices found", file=sys.stderr)
        return 1
    for d in devices:
        if as_json:
            print_json(d.to_dict())
            continue
        marks = ("*in " if d.default_input else "    ") + ("*out " if d.default_output else "     ")
        print(f"{d.index:3d} {marks}{d.name}  (in {d.inputs}, out {d.outputs}, {d.default_rate:.0f} Hz)")
    return 0


def _warm_cloud(app) -> None:
    from tutor_app.startup import warm_service

    try:
        warm_service(getattr(app.chat_model, "primary", None))
    except Exception:  # noqa: BLE001 - the first turn reports a broken model properly
        pass
