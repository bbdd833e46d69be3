"""`tutor-app models status|install`: what is installed and usable; install with checks."""
from __future__ import annotations

import argparse
import sys

from tutor_app.commands import print_json


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("models", parents=[common], help="list and install the models",
                       description="Models for speech, voice, memory, emotion and the local tutor.")
    msub = p.add_subparsers(dest="models_command", metavar="ACTION", required=True)
    st = msub.add_parser("status", parents=[common], help="what is installed and usable")
    st.add_argument("--json", action="store_true", help="one JSON object per model")
    st.add_argument("--quick", action="store_true", help="skip the sha256 check of every file")
    st.set_defaults(func=run_status)
    ins = msub.add_parser("install", parents=[common],
                          help="install NAME (default: every offline default) into models/")
    ins.add_argument("names", nargs="*", metavar="NAME")
    ins.add_argument("--defaults", action="store_true", help="install every default model (offline)")
    ins.add_argument("--force", action="store_true", help="reinstall even when installed")
    ins.set_defaults(func=run_install)


def run_status(args: argparse.Namespace, app) -> int:
    from tutor_app.llm.recommend import recommend_llm
    from tutor_app.registry.manifest import repair_hint

    # A full check reads every file again: it also finds damage that kept the file's mtime.
    statuses = app.registry.statuses(verify=not args.quick, rehash=not args.quick)
    pick = recommend_llm(app.registry)  # the local tutor model suggested for this machine
    if args.json:
        for s in statuses:
            print_json({"name": s.spec.name, "role": s.spec.role, "state": s.state,
                        "usable": s.usable, "default": s.spec.default, "source": s.spec.source,
                        "size_mb": s.spec.size_mb, "license": s.spec.license,
                        "path": str(s.path) if s.path else None, "detail": s.detail,
                        "recommended": s.spec.name == pick.name,
                        "recommended_why": pick.reason if s.spec.name == pick.name else ""})
        return 0 if all(s.usable for s in statuses if s.spec.default) else 1
    print(f"models folder: {app.registry.models_dir}")
    if app.registry.bundled_dir is not None:
        print(f"bundled with the app (read-only): {app.registry.bundled_dir}")
    print(f"{'name':26} {'role':9} {'state':12} {'size':>8}  licence / detail")
    for s in statuses:
        mark = "*" if s.spec.default else " "
        detail = s.detail or s.spec.license
        print(f"{mark}{s.spec.name:25} {s.spec.role:9} {s.state:12} {s.spec.size_mb:6.0f}MB  {detail}")
    print("* default.  in-package: usable from its pip package; `models install` copies it here.")
    print(f"suggested local tutor model for this machine: {pick.summary or pick.name} ({pick.reason})")
    broken = [s for s in statuses if s.spec.default and not s.usable]
    for s in broken:
        fix = repair_hint(s.spec, s) if s.state == "corrupt" else f"run `tutor-app models install {s.spec.name}`"
        print(f"problem: {s.spec.name} is {s.state}: {fix}")
    return 1 if broken else 0


def run_install(args: argparse.Namespace, app) -> int:
    from tutor_app.commands.progress import ProgressBar
    from tutor_app.errors import TutorError
    from tutor_app.registry.install import InstallCancelled, install

    registry = app.registry
    names = list(args.names) or [s.name for s in registry.specs if s.default]
    for name in names:
        registry.get(name)  # unknown names fail before anything is installed
    failed = []
    for name in names:
        bar = ProgressBar(name)
        try:
            result = install(registry, name, progress=bar, force=args.force)
        except InstallCancelled:
            raise
        except TutorError as exc:
            # Keep going: one broken model must not block the others.
            failed.append(name)
            print(f"tutor-app: {exc}", file=sys.stderr)
            continue
        finally:
            bar.close()
        print(f"{name}: installed in {result.path} ({result.seconds:.1f} s)")
    if failed:
        raise TutorError(f"not installed: {', '.join(failed)}")
    return 0
