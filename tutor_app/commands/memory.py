"""`tutor-app memory ...`: view, add, search, delete, clean up, export and import what
Tutor remembers about the current --profile (contract in DESIGN.md)."""
from __future__ import annotations

import argparse
import sys

from tutor_app.commands import check_size, print_json, stdin_lines, text_arg


def register(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("memory", parents=[common], help="what Tutor remembers about you",
                       description="Long-term memory of the current profile (--profile).")
    ms = p.add_subparsers(dest="memory_command", metavar="ACTION", required=True)

    for name, helptext, func in (("list", "every memory, oldest first", run_list),
                                 ("profile", "memories grouped as a learner profile", run_profile)):
        q = ms.add_parser(name, parents=[common], help=helptext)
        q.add_argument("--json", action="store_true", help="one JSON object per line")
        q.set_defaults(func=func)

    a = ms.add_parser("add", parents=[common], help="remember TEXT")
    a.add_argument("text", type=text_arg, metavar="TEXT")
    a.add_argument("--category", default="", metavar="C", help="e.g. name, occupation, interest, preference")
    a.add_argument("--type", dest="memory_type", default="semantic", metavar="T",
                   help="semantic | episodic | procedural")
    a.add_argument("--importance", default="0.5", metavar="X", help="0..1 (default 0.5)")
    a.add_argument("--created-at", default=None, metavar="ISO", help="when it was said (ISO 8601)")
    a.set_defaults(func=run_add)

    s = ms.add_parser("search", parents=[common], help="search memories (stdin lines if no QUERY)")
    s.add_argument("query", nargs="?", type=text_arg, metavar="QUERY")
    s.add_argument("--k", type=int, default=5, metavar="K", help="at most K hits (default 5)")
    s.add_argument("--json", action="store_true", help="one JSON object per query")
    s.set_defaults(func=run_search)

    d = ms.add_parser("delete", parents=[common], help="forget one memory for real")
    d.add_argument("id", metavar="ID")
    d.set_defaults(func=run_delete)
    c = ms.add_parser("clear", parents=[common], help="forget everything of this profile, for real")
    c.set_defaults(func=run_clear)
    cl = ms.add_parser("cleanup", parents=[common], help="forget old memories of low importance")
    cl.add_argument("--days", type=int, default=None, metavar="N",
                    help="older than N days and importance < 0.5 (default: settings, 30)")
    cl.set_defaults(func=run_cleanup)

    e = ms.add_parser("export", parents=[common], help="everything of this profile as JSON (stdout if no FILE)")
    e.add_argument("file", nargs="?", metavar="FILE")
    e.set_defaults(func=run_export)
    i = ms.add_parser("import", parents=[common], help="add memories from a JSONL file (all or nothing)")
    i.add_argument("file", metavar="FILE.jsonl")
    i.set_defaults(func=run_import)


def _memory(app):
    """The profile's memory for a command that shows or changes it: a damaged memories table
    is the command's one line, not an empty list (an export still saves what can be read)."""
    store = app.memory
    store.degrade_reads = False
    return store


def _hit_json(hit) -> dict:
    from tutor_app.memory.storage.schema import iso

    m = hit.memory
    return {"id": m.id, "text": m.text, "score": round(float(hit.score), 4), "category": m.category or None,
            "created_at": iso(m.created_at), "meta": m.meta}


def run_list(args: argparse.Namespace, app) -> int:
    mems = _memory(app).list()
    if args.json:
        for m in mems:
            print_json(m.to_dict())
        return 0
    if not mems:
        print(f"no memories for profile '{app.settings.profile}'")
        return 0
    for m in mems:
        when = m.created_at.strftime("%Y-%m-%d %H:%M") if m.created_at else "?"
        flag = " (old value)" if m.superseded_by else ""
        cat = f"[{m.category}] " if m.category else ""
        print(f"{m.id}  {when}  {cat}{m.text}{flag}")
    return 0


def run_profile(args: argparse.Namespace, app) -> int:
    view = _memory(app).profile_view()
    if args.json:
        print_json(view)
        return 0
    for key in ("name", "occupation"):
        print(f"{key}: {view[key] or '-'}")
    for key in ("interests", "learning_goals", "preferences", "mentioned_facts"):
        print(f"{key}: {', '.join(view[key]) or '-'}")
    for key, old in view["history"].items():
        if old:
            print(f"earlier {key}: {', '.join(old)}")
    if view["other"]:
        print("other:")
        for t in view["other"]:
            print(f"  - {t}")
    return 0


def run_add(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import UsageError
    from tutor_app.memory.storage.schema import MAX_TEXT_BYTES, MEMORY_TYPES

    check_size(args.text, MAX_TEXT_BYTES, "memory text")
    if args.memory_type not in MEMORY_TYPES:
        raise UsageError(f"--type must be one of {', '.join(MEMORY_TYPES)}")
    try:
        importance = float(args.importance)
    except ValueError:
        raise UsageError(f"--importance must be a number between 0 and 1, not {args.importance!r}") from None
    mem = _memory(app).add(args.text, category=args.category, memory_type=args.memory_type,
                           importance=importance, source="manual", created_at=args.created_at)
    print(mem.id)
    return 0


def run_search(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import UsageError
    from tutor_app.memory.storage.schema import MAX_TEXT_BYTES

    if args.k < 1:
        raise UsageError("--k must be at least 1")
    # A query is compared with memories, so it gets their size limit, checked before the index loads.
    if args.query is not None:
        queries = [check_size(args.query, MAX_TEXT_BYTES, "search query")]
    else:
        queries = stdin_lines(MAX_TEXT_BYTES, "search query")
    if not queries:
        raise UsageError("give a QUERY or one query per line on stdin")
    for q in queries:
        hits = _memory(app).search(q, k=args.k)
        if args.json:
            print_json({"query": q, "hits": [_hit_json(h) for h in hits]})
            continue
        print(f"{q}: {len(hits)} hit(s)" if len(queries) > 1 else f"{len(hits)} hit(s)")
        for h in hits:
            print(f"  {h.score:.3f}  {h.memory.id}  {h.memory.text}")
    return 0


def run_delete(args: argparse.Namespace, app) -> int:
    found = _memory(app).delete(args.id)
    # None: the id was deleted before but not yet erased (an interrupted deletion): erased now
    print(f"deleted {args.id}" if found is not None else f"deleted {args.id} (finished an interrupted deletion)")
    return 0


def run_clear(args: argparse.Namespace, app) -> int:
    n = _memory(app).clear()
    print(f"deleted {n} memories and every transcript of profile '{app.settings.profile}'")
    return 0


def run_cleanup(args: argparse.Namespace, app) -> int:
    from tutor_app.errors import UsageError
    from tutor_app.memory.storage.maintenance import cleanup

    days = app.settings.memory.cleanup_days if args.days is None else args.days
    if days < 0:
        raise UsageError("--days must be >= 0")
    store = _memory(app)
    n = cleanup(store, days)
    store.erase_hidden()  # and whatever an interrupted deletion left on disk
    print(f"deleted {n} memories older than {days} days with importance < 0.5")
    return 0


def run_export(args: argparse.Namespace, app) -> int:
    from pathlib import Path

    from tutor_app.memory.storage.transfer import export_profile, write_export

    if args.file in (None, "-"):
        print_json(export_profile(app.memory, {"practice": app.practice.export()}))
        return 0
    n = write_export(app.memory, Path(args.file), {"practice": app.practice.export()})
    print(f"exported {n} memories to {args.file}", file=sys.stderr)
    return 0


def run_import(args: argparse.Namespace, app) -> int:
    from pathlib import Path

    from tutor_app.memory.storage.transfer import import_file

    res = import_file(_memory(app), Path(args.file))
    extra = f" ({res.skipped_duplicates} already present, skipped)" if res.skipped_duplicates else ""
    print(f"imported {res.imported} memories{extra}")
    return 0
