"""`tutor-app practice ...`: the learner's own mistakes and new words, and when each
comes back (the same items the Practice page shows)."""
from __future__ import annotations

import argparse

from tutor_app.commands import print_json, text_arg


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("practice", parents=[common], help="your mistakes and new words, and when they come back",
                       description="Every correction the tutor made and every new word of your calls, kept per "
                                   "profile and brought back by spaced repetition until you have them.")
    ps = p.add_subparsers(dest="practice_command", metavar="ACTION", required=True)
    for name, helptext in (("list", "everything kept, with its next review"), ("due", "what comes back next call")):
        q = ps.add_parser(name, parents=[common], help=helptext)
        q.add_argument("--json", action="store_true", help="one JSON object per item")
        q.set_defaults(func=run)
    s = ps.add_parser("search", parents=[common], help="items whose words contain all of QUERY")
    s.add_argument("query", type=text_arg, metavar="QUERY")
    s.add_argument("--json", action="store_true")
    s.set_defaults(func=run)
    d = ps.add_parser("delete", parents=[common], help="forget one item for real")
    d.add_argument("id", metavar="ID")
    d.set_defaults(func=run)
    c = ps.add_parser("clear", parents=[common], help="forget every item of this profile, for real")
    c.set_defaults(func=run)


def item_json(item, now) -> dict:
    from tutor_app.practice import schedule

    due = schedule.due_at(item.card)
    return {"id": item.id, "kind": item.kind, "said": item.said, "better": item.better or None,
            "why": item.why or None, "type": item.type or None, "session_id": item.session_id,
            "created_at": item.created_at, "due": due.isoformat() if due else None,
            "due_now": schedule.is_due(item.card, now), "mastered": schedule.is_mastered(item.card),
            "reviews": [r.to_dict() for r in item.reviews]}


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.practice.plan import due_items

    store = app.practice
    action = args.practice_command
    if action == "delete":
        item = store.delete(args.id)
        print(f"forgot {item.kind} {item.id}")
        return 0
    if action == "clear":
        print(f"forgot {store.clear()} practice items of profile '{app.settings.profile}'")
        return 0
    now = store.now()
    if action == "due":
        items = due_items(store.items(), now)
    elif action == "search":
        items = store.search(args.query)
    else:
        items = store.items()
    for item in items:
        if args.json:
            print_json(item_json(item, now))
            continue
        row = item_json(item, now)
        when = "mastered" if row["mastered"] else ("due now" if row["due_now"] else f"next {row['due'][:10]}")
        what = f"{item.said} -> {item.better}" if item.better else item.said
        print(f"{item.id}  {item.kind:7}  {(item.type or '-'):11}  {when:16}  {what}")
    if not items and not args.json:
        print("nothing here yet" if action != "due" else "nothing due: keep talking")
    return 0
