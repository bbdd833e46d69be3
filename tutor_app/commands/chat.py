"""`tutor-app chat` (text turns) and `tutor-app end-call` (call-end extraction now)."""
from __future__ import annotations

import argparse
import sys

from tutor_app.commands import check_size, print_json, stdin_lines, text_arg


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("chat", parents=[common], help="talk to the tutor in text turns",
                       description="Text turns with the tutor: each --text (or stdin line) is one "
                                   "turn of the call SESSION; the same SESSION later continues it.")
    p.add_argument("--session", metavar="S", help="call/session id (default: a new one)")
    p.add_argument("--text", action="append", type=text_arg, metavar="T", help="a learner turn (repeatable)")
    p.add_argument("--off-record", action="store_true", help="store and extract nothing")
    p.add_argument("--json", action="store_true", help="one JSON object per turn")
    p.set_defaults(func=run_chat)
    e = sub.add_parser("end-call", parents=[common], help="end a call: extract and merge what was learned",
                       description="Runs call-end extraction + merge and the call report now.")
    e.add_argument("--session", metavar="S", required=True)
    e.add_argument("--json", action="store_true")
    e.set_defaults(func=run_end_call)


def run_chat(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import UsageError
    from tutor_app.memory.storage.schema import MAX_MESSAGE_BYTES

    # Sizes first: an overlong turn is refused before the models load or anything is read whole.
    if args.text:
        texts = [check_size(t, MAX_MESSAGE_BYTES, "message text") for t in args.text]
    else:
        texts = stdin_lines(MAX_MESSAGE_BYTES, "message text")
    if not texts:
        raise UsageError("nothing to say: give --text T or lines on stdin")
    engine = app.engine
    app.recover_calls(exclude=args.session)
    session = engine.start_call(args.session, off_record=args.off_record)
    if not args.session and not args.json:
        print(f"(session {session.session_id})", file=sys.stderr)
    for text in texts:
        result = session.turn(text)
        if args.json:
            print_json(result.to_json())
        else:
            print(f"you:   {result.user_text}\ntutor: {result.reply}", flush=True)
            if result.error:
                print(f"tutor-app: {result.error}", file=sys.stderr)
    return 0


def run_end_call(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import TutorError
    from tutor_app.tutor.lifecycle import process_call

    engine = app.engine
    calls = [c for c in app.memory.calls() if c.session_id == args.session]
    if not calls:
        raise TutorError(f"no call with session '{args.session}' in profile '{app.settings.profile}'")
    app.recover_calls(exclude=args.session)
    # Unfinished now: if another process (a second end-call, a start's recovery) finishes it
    # first, it is not extracted twice. Finished already: the learner asks for it again.
    outcome = process_call(engine, args.session, None, None, engine.services.clock(),
                           unless_done=not any(c.extracted for c in calls))
    if args.json:
        print_json(outcome.to_json())
        return 0
    print(f"extraction: {outcome.extraction}" + (f" ({outcome.error})" if outcome.error else ""))
    for key, value in outcome.extracted.items():
        if value:
            print(f"  learned {key}: {value}")
    print("profile now:")
    for key, value in outcome.profile.items():
        if value:
            print(f"  {key}: {value}")
    return 0
