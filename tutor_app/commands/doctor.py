"""`tutor-app doctor`: what this machine gives the app, each line OK or what to do."""
from __future__ import annotations

import argparse
import os
import platform
from dataclasses import dataclass, field
from typing import Any

from tutor_app.commands import print_json

LOW_SPACE_BYTES = 50 * 1024 * 1024  # below this a memory write or a deletion's rewrite may not fit


@dataclass
class Check:
    area: str
    ok: bool
    detail: str
    fix: str = ""
    numbers: dict[str, Any] = field(default_factory=dict)  # --json only (a repair's row counts)


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("doctor", parents=[common],
                       help="check devices, CUDA, models, audio, keyring and the memory database",
                       description="Checks what the app needs; prints OK or what to do for each.")
    p.add_argument("--json", action="store_true", help="one JSON object per check")
    p.add_argument("--repair", action="store_true",
                   help="repair a damaged memory database: keep what can be read, copy the damaged "
                        "table aside, say what was lost")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, app) -> int:
    checks: list[Check] = []
    repairing = getattr(args, "repair", False)
    probes = (_system, _data_dir, *(() if repairing else (_database,)), _compute, _models, _audio, _keyring,
              _local_llm)
    for probe in probes:
        try:
            checks.extend(probe(app))
        except Exception as exc:  # noqa: BLE001 - a failing probe is itself a finding
            checks.append(Check(probe.__name__.strip("_"), False, f"check failed: {exc}"))
    if repairing:  # the database is checked there, repaired, and checked again
        from tutor_app.commands.doctor_db import repair

        checks += [Check(**vars(f)) for f in repair(app)]
    for c in checks:
        if args.json:
            print_json({"area": c.area, "ok": c.ok, "detail": c.detail, "fix": c.fix, **c.numbers})
        else:
            print(f"[{'OK' if c.ok else '!!'}] {c.area:10} {c.detail}" + (f"\n      -> {c.fix}" if c.fix else ""))
    essential = [c for c in checks if not c.ok and c.area in ("data", "database", "repair", "models")]
    return 1 if essential else 0


def _database(app) -> list[Check]:
    from tutor_app.commands.doctor_db import database

    return [Check(**vars(f)) for f in database(app)]


def _system(app) -> list[Check]:
    return [Check("system", True, f"Python {platform.python_version()} on {platform.system()} "
                                  f"{platform.machine()}, {os.cpu_count()} CPU cores")]


def _data_dir(app) -> list[Check]:
    import shutil

    from tutor_app.errors import TutorError

    try:
        app.paths.ensure_writable()
    except TutorError as exc:
        return [Check("data", False, str(exc), "pass --data-dir DIR or set TUTOR_APP_DATA_DIR")]
    out = [Check("data", True, f"{app.paths.data_dir} (profile '{app.settings.profile}')")]
    free = shutil.disk_usage(app.paths.data_dir).free
    if free < LOW_SPACE_BYTES:
        out.append(Check("data", False, f"only {free // (1024 * 1024)} MB free on the disk of {app.paths.data_dir}: "
                         "memories, transcripts and deletions need room to be written",
                         "free some space on that disk (a deletion waiting for it finishes by itself then)"))
    return out


def _compute(app) -> list[Check]:
    from tutor_app.speech.devices import select_compute

    speech = app.settings.speech
    choice = select_compute(speech.stt_device, speech.stt_compute_type)
    out = [Check("compute", True, f"speech recognition on {choice.device} ({choice.compute_type}): {choice.reason}")]
    if choice.warning:
        out.append(Check("cuda", False, choice.warning,
                         "install CUDA 12 + cuDNN 9 and a CUDA build of torch (README, GPU section), "
                         "or set stt_device = \"cpu\""))
    return out


def _models(app) -> list[Check]:
    out = []
    for status in app.registry.statuses(verify=False):
        if not status.spec.default:
            continue
        fix = "" if status.usable else (
            "retrain it: make train-emotion (or reinstall the app)" if status.spec.source == "asset"
            else f"tutor-app models install {status.spec.name}")
        out.append(Check("models", status.usable, f"{status.spec.role}: {status.spec.name} {status.state}"
                         + (f" ({status.detail})" if status.detail else ""), fix))
    return out


def _audio(app) -> list[Check]:
    try:
        import sounddevice as sd
    except OSError:
        return [Check("audio", False, "PortAudio library not found",
                      "sudo apt-get install libportaudio2 (Linux); reinstall the app elsewhere")]
    try:
        devices = sd.query_devices()
    except Exception as exc:  # noqa: BLE001 - PortAudio errors vary by host API
        return [Check("audio", False, f"cannot list audio devices: {exc}")]
    inputs = [d for d in devices if d["max_input_channels"] > 0]
    outputs = [d for d in devices if d["max_output_channels"] > 0]
    out = []

    def describe(d: dict) -> str:
        return f"{d['name']} ({int(d['default_samplerate'])} Hz)"

    if inputs:
        default_in = _default_name(sd, 0)
        out.append(Check("audio", True, f"microphone: {default_in or describe(inputs[0])}; {len(inputs)} input(s)"))
    else:
        out.append(Check("audio", False, "no microphone found", "plug in a microphone or headset; "
                         "text input still works"))
    if outputs:
        default_out = _default_name(sd, 1)
        out.append(Check("audio", True, f"speaker: {default_out or describe(outputs[0])}; {len(outputs)} output(s)"))
    else:
        out.append(Check("audio", False, "no speaker found", "connect speakers or headphones"))
    from tutor_app.speech.aec import probe

    canceller, canceller_why = probe()
    out.append(Check("audio", canceller, f"echo canceller: {canceller_why}",
                     "" if canceller else "reinstall the app (pywebrtc-audio); calls use gated mode meanwhile"))
    if inputs and outputs:
        from tutor_app.speech.echo import resolve_mode
        from tutor_app.speech.sound_devices import list_devices

        chosen = app.settings.speech.audio_mode
        mode, why = resolve_mode(chosen, list_devices(sd), canceller, "" if canceller else canceller_why)
        out.append(Check("audio", True, f"call mode: {mode} (setting: {chosen}): {why}"))
    return out


def _local_llm(app) -> list[Check]:
    """The local tutor model: which file or server, and where llama.cpp runs it, and why."""
    from tutor_app.llm.factory import describe_local

    ok, detail, fix = describe_local(app.settings, app.registry)
    return [Check("llm", ok, detail, fix)]


def _default_name(sd, index: int) -> str:
    try:
        device = sd.default.device[index]
        return sd.query_devices(device)["name"] if device is not None and device >= 0 else ""
    except Exception:  # noqa: BLE001
        return ""


def _keyring(app) -> list[Check]:
    from tutor_app.llm.keys import key_source

    try:
        import keyring

        backend = keyring.get_keyring()
        name = f"{type(backend).__module__.split('.')[-1]}.{type(backend).__name__}"
        usable = getattr(backend, "priority", 0) > 0
    except Exception as exc:  # noqa: BLE001 - keyring import/backends vary by platform
        name, usable = f"unavailable ({type(exc).__name__})", False
    checks = [Check("keyring", usable, f"OS keyring: {name}",
                    "" if usable else "install a keyring service (gnome-keyring / KWallet) to save "
                    "an API key in the app; the ANTHROPIC_API_KEY variable works without one")]
    source = key_source()
    checks.append(Check("llm", True, f"Claude API key from the {source}: the tutor uses Claude" if source
                        else "no Claude API key: the tutor uses the bundled local model (offline)"))
    return checks
