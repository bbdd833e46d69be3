"""`tutor-app speak TEXT --output OUT.wav`: the tutor's voice into a WAV file.

The file is written atomically (temp file, then rename): on any error nothing
half-written is left at OUT.wav.
"""
from __future__ import annotations

import argparse

from tutor_app.commands import text_arg


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("speak", parents=[common], help="speak TEXT into a WAV file",
                       description="Synthesise TEXT with the local Piper voice into a WAV file. "
                                   "Markdown, emoji and numbers are read the way a person would.")
    p.add_argument("text", nargs="+", type=text_arg, metavar="TEXT", help="what to say (quote it)")
    p.add_argument("--output", "-o", required=True, metavar="OUT.wav", help="WAV file to write")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, app) -> int:
    from pathlib import Path

    from tutor_app.errors import TutorError, UsageError
    from tutor_app.speech.text_normalize import normalize_for_speech
    from tutor_app.speech.tts import write_wav

    text = " ".join(args.text).strip()
    if not text:
        raise UsageError("speak: TEXT is empty")
    if not normalize_for_speech(text):
        raise TutorError("speak: nothing speakable in TEXT (only symbols, emoji or markup)")
    out = Path(args.output)
    if out.is_dir():
        raise TutorError(f"{out}: is a folder, give a .wav file name")
    if not out.parent.is_dir():
        raise TutorError(f"{out}: folder {out.parent} does not exist")
    tts = app.tts
    samples = tts.synthesize_all(text)
    try:
        write_wav(out, samples, tts.sample_rate)
    except OSError as exc:
        raise TutorError(f"{out}: cannot write ({exc.strerror or exc})") from None
    print(f"{out}: {len(samples) / tts.sample_rate:.1f} s of audio at {tts.sample_rate} Hz")
    return 0
