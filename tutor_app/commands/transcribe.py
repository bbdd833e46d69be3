"""`tutor-app transcribe FILE... [--json]`: speech files to text, offline.

Every file is tried: a bad one prints one line naming it on stderr, the others are still
transcribed, and the exit code is 1 when any file failed. With one file the text is
printed alone; with several each line starts with the file name.
"""
from __future__ import annotations

import argparse
import sys

from tutor_app.commands import print_json


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("transcribe", parents=[common], help="transcribe speech files",
                       description="Transcribe speech files (wav, flac, mp3, ...) with the local "
                                   "Whisper model. Silence or noise gives an empty text.")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true",
                   help="one JSON object per file: file, text, language, seconds")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import AudioInputError, TutorError
    from tutor_app.speech.audiofile import load_audio

    failed = 0
    several = len(args.files) > 1
    for name in args.files:
        try:
            clip = load_audio(name)  # bad files fail here, before any model is loaded
            transcript = app.stt.transcribe(clip)
        except AudioInputError as exc:
            failed += 1
            print(f"tutor-app: {exc}", file=sys.stderr)
            continue
        except TutorError:
            raise  # model problems are not the file's fault: stop
        if args.json:
            print_json({"file": name, "text": transcript.text, "language": transcript.language,
                        "seconds": round(transcript.seconds, 3)})
        elif several:
            print(f"{name}: {transcript.text}", flush=True)
        else:
            print(transcript.text, flush=True)
    return 1 if failed else 0
