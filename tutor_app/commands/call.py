"""`tutor-app call`: one spoken turn from a file (STT -> turn -> TTS), or a live call on
the default sound devices (`--live`)."""
from __future__ import annotations

import argparse

from tutor_app.commands import print_json


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("call", parents=[common], help="a spoken turn from a file, or a live call",
                       description="With --input: transcribe IN.wav, run one tutor turn and write the "
                                   "spoken reply to --output. With --live: a call on the sound devices.")
    p.add_argument("--input", metavar="IN.wav", help="the learner's recorded turn")
    p.add_argument("--output", metavar="OUT.wav", help="where to write the tutor's spoken reply")
    p.add_argument("--session", metavar="S", help="call/session id (default: a new one)")
    p.add_argument("--live", action="store_true", help="a live call on the default microphone/speaker")
    p.add_argument("--off-record", action="store_true", help="store and extract nothing")
    p.add_argument("--json", action="store_true", help="one JSON object per turn")
    from tutor_app.commands.live_call import add_live_options

    add_live_options(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import UsageError

    if args.live:
        from tutor_app.commands.live_call import run_live

        return run_live(args, app)
    if not args.input:
        raise UsageError("give --input IN.wav (a recorded turn) or --live")
    return _file_turn(args, app)


def _file_turn(args: argparse.Namespace, app) -> int:
    import time

    import numpy as np

    from tutor_app.speech.audiofile import load_audio
    from tutor_app.speech.language_id import installed_ear
    from tutor_app.speech.tts import write_wav
    from tutor_app.tutor.korean_help import HANGUL

    clip = load_audio(args.input)  # bad files fail here, before anything is stored
    app.recover_calls(exclude=args.session)
    session = app.engine.start_call(args.session, off_record=args.off_record)
    tts = app.tts if args.output else None
    chunks: list[np.ndarray] = []
    tts_ms = 0.0

    def speak(sentence: str) -> None:
        nonlocal tts_ms
        if tts is None:
            return
        t0 = time.perf_counter()
        chunks.extend(tts.synthesize(sentence))
        tts_ms += (time.perf_counter() - t0) * 1000

    # A turn that is not English may be Korean, when the optional multilingual model is installed.
    result = session.turn_audio(clip, on_sentence=speak, ear=installed_ear(app.settings, app.registry))
    if tts is not None:
        result.timings_ms["tts"] = round(tts_ms, 2)
        audio = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)
        write_wav(args.output, audio, tts.sample_rate)
    if args.json:
        print_json(result.to_json())
    else:
        if result.not_heard:
            print(f"(not understood as English: {result.not_heard}; nothing was kept)")
        elif HANGUL.search(result.transcript or ""):  # only the multilingual model writes Hangul
            print(f"you said (in Korean; answered, not kept): {result.transcript}")
        else:
            print(f"you said: {result.transcript}")
        print(f"tutor:    {result.reply}")
        if args.output:
            print(f"(spoken reply written to {args.output})")
    return 0
