"""Command line: parses and dispatches, nothing else. The contract is in DESIGN.md.

Each sub-command lives in tutor_app/commands/<name>.py with `register(subparsers,
common)`; handlers receive the parsed args and the lazily built `App`.
"""
from __future__ import annotations

import argparse
import importlib
import logging
import os
import sys
from collections.abc import Sequence

from tutor_app import __version__
from tutor_app.commands import module_available
from tutor_app.errors import TutorError, UsageError

# Order is the order of `--help`.
COMMAND_MODULES = (
    "gui", "chat", "call", "transcribe", "speak", "emotion", "memory", "practice", "models", "doctor", "bench",
)

log = logging.getLogger(__name__)


def _global_options(parser: argparse.ArgumentParser, suppress: bool) -> None:
    # On sub-commands the defaults are SUPPRESS so `tutor-app memory list --profile x`
    # and `tutor-app --profile x memory list` both work without overwriting each other.
    d = (lambda v: argparse.SUPPRESS) if suppress else (lambda v: v)
    parser.add_argument("--data-dir", default=d(None), metavar="DIR",
                        help="where memories, calls, settings and logs live (env TUTOR_APP_DATA_DIR)")
    parser.add_argument("--profile", default=d(None), metavar="NAME",
                        help="learner profile (env TUTOR_APP_PROFILE, default 'default')")
    parser.add_argument("--llm", default=d(None), choices=("anthropic", "local"),
                        help="tutor model backend (env TUTOR_APP_LLM; default anthropic when a key "
                             "is configured, else local)")
    parser.add_argument("--debug", action="store_true", default=d(False),
                        help="print tracebacks and debug logs")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tutor-app",
        description="Tutor: a private voice tutor for spoken English practice. "
                    "Runs offline by default; with no command it opens the desktop app.",
    )
    parser.add_argument("--version", action="version", version=f"tutor-app {__version__}")
    _global_options(parser, suppress=False)
    common = argparse.ArgumentParser(add_help=False)
    _global_options(common, suppress=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        module_name = f"tutor_app.commands.{name}"
        if not module_available(module_name):
            continue
        importlib.import_module(module_name).register(sub, common)
    return parser


def _bad_option(args: argparse.Namespace) -> str:
    """An empty --data-dir or --profile would silently mean the default one: refuse it. A
    profile or session name is bounded here, before anything is opened or named after it."""
    from tutor_app.paths import MAX_PROFILE_CHARS, check_session_id

    for dest, flag in (("data_dir", "--data-dir"), ("profile", "--profile")):
        value = getattr(args, dest, None)
        if value is not None and not value.strip():
            return f"{flag} is empty: give a {'folder' if dest == 'data_dir' else 'profile name'}"
    profile = getattr(args, "profile", None)
    if profile is not None and (len(profile) > MAX_PROFILE_CHARS or not profile.isprintable()):
        return f"--profile must be 1-{MAX_PROFILE_CHARS} printable characters ({len(profile)} characters given)"
    # chat and call start or continue a session; end-call may still name an older, longer one.
    session = getattr(args, "session", None)
    if session is not None and args.command in ("chat", "call"):
        try:
            check_session_id(session)
        except TutorError as exc:
            return f"--session: {exc} ({len(session)} characters given)"
    return ""


def main(argv: Sequence[str] | None = None) -> int:
    # Idle OpenMP threads spin by default; on a 2-core laptop that starves the other
    # threads of a live call (measured: one embedding 198 ms instead of 19 ms).
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    # numpy's OpenBLAS does the same after every threaded product, however small (a mel
    # spectrogram, an echo fit): Whisper's encoder right after the mel took 100 ms
    # instead of 55. Our matrices are small; one thread is as fast. Read at numpy's import.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "command", None):
        args = parser.parse_args(["gui", *(argv if argv is not None else sys.argv[1:])])
    problem = _bad_option(args)
    if problem:
        print(f"tutor-app: {problem}", file=sys.stderr)
        return 2
    from tutor_app.app import App

    app = App.from_args(args)
    try:
        result = args.func(args, app)
        return int(result or 0)
    except UsageError as exc:
        print(f"tutor-app: {exc}", file=sys.stderr)
        return 2
    except TutorError as exc:
        log.info("error: %s", exc, exc_info=True)
        print(f"tutor-app: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("tutor-app: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as exc:  # noqa: BLE001 - the last line of defence: one clear line
        log.info("unexpected error", exc_info=True)  # to the log file only
        if args.debug:
            raise
        from tutor_app.storage_errors import storage_line

        storage = storage_line(exc, app.paths.data_dir, pending_deletion=app.paths.purge_journal.exists())
        if storage:
            print(f"tutor-app: {storage}", file=sys.stderr)
            return 1
        print(f"tutor-app: unexpected error: {type(exc).__name__}: {exc} "
              f"(run with --debug for details; log: {app.paths.log_file})", file=sys.stderr)
        return 1
    finally:
        app.close()
