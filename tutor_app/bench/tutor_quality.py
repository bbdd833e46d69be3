"""`tutor-app bench tutor-quality`: the small local tutor models on learner lines with
typical errors (bench/data/tutor_quality.json), each line a fresh one-turn call with the
offline prompt and the reply check of a real turn (tutor/reply_stream.py).

Per model: how often its first sample parrots the learner (tutor/parrot.py), how often
the reply recasts the error (contains a corrected form), how often it is nonsense
(empty, not English, a canned assistant line, or off topic: no word of the learner's
line and no "you"), then the
same for what the learner finally hears (after the check: a second sample or the
fallback), and first-token latency and tokens/s of the first sample. llama.cpp runs one
thread (the CPU is shared). Prints; never asserts.
"""
from __future__ import annotations

import argparse
import json
import re
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tutor_app.bench.common import machine_line, p50
from tutor_app.core.types import ChatMessage

DATA = Path(__file__).parent / "data" / "tutor_quality.json"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", action="append", default=[], metavar="NAME|LABEL=PATH",
                        help="a registry model or a GGUF file (repeatable; default: the bundled model and "
                             "every other installed llm-local model under 1 GB)")
    parser.add_argument("--chat-format", default="", help="llama.cpp chat format for a GGUF with no chat "
                                                          "template (e.g. gemma: a base model)")
    parser.add_argument("--lines", type=int, default=0, help="use the first N lines (0 = all)")
    parser.add_argument("--threads", type=int, default=1, help="llama.cpp threads")
    parser.add_argument("--attempts", type=int, default=0,
                        help="samples before the fallback (0 = as a turn does)")
    parser.add_argument("--show", action="store_true", help="print every reply")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


@dataclass
class Row:
    label: str
    size_mb: float
    n: int = 0
    parrot: int = 0
    recast: int = 0
    nonsense: int = 0
    heard_parrot: int = 0
    heard_recast: int = 0
    heard_nonsense: int = 0
    fallback: int = 0
    rule: int = 0  # turns led by a rule's recast or answer (said before the model)
    first_token_s: list[float] = field(default_factory=list)
    tokens_per_s: list[float] = field(default_factory=list)
    error: str = ""


class _Timed:
    """The model as the turn sees it, timing its first sample."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.name = model.name
        self.compact_prompt = True
        self.first: dict[str, Any] = {}

    def stream(self, system: Any, messages: Sequence[ChatMessage], cancel: Any = None) -> Iterator[str]:
        start = time.perf_counter()
        parts: list[str] = []
        try:
            for delta in self.model.stream(system, messages, cancel):
                if not parts:
                    self.first["first_token_s"] = time.perf_counter() - start
                parts.append(delta)
                yield delta
        finally:
            self.first.update(text="".join(parts), seconds=time.perf_counter() - start)

    def sample(self, system: Any, messages: Sequence[ChatMessage], cancel: Any, attempt: int) -> Iterator[str]:
        result: Iterator[str] = self.model.sample(system, messages, cancel, attempt)
        return result

    def complete_json(self, system: Any, messages: Sequence[ChatMessage], schema: Any = None) -> dict[str, Any]:
        raise NotImplementedError


def run(args: argparse.Namespace, app) -> int:
    lines = json.loads(DATA.read_text(encoding="utf-8"))["lines"]
    if args.lines:
        lines = lines[: args.lines]
    print(machine_line())
    print(f"{len(lines)} learner lines ({DATA.name}), one fresh turn each, offline prompt, "
          f"llama.cpp {args.threads} thread(s), {args.attempts or 'default'} sample(s) before the fallback")
    rows = [_bench(label, path, args, lines) for label, path in _models(args, app)]
    _print(rows)
    if args.json:
        print(json.dumps([r.__dict__ for r in rows], default=str))
    return 0


def _models(args: argparse.Namespace, app) -> list[tuple[str, Path]]:
    from tutor_app.llm.factory import DEFAULT_LOCAL_MODEL, resolve_gguf

    chosen: list[tuple[str, Path]] = []
    for item in args.model:
        label, _, path = item.partition("=")
        chosen.append((label, Path(path)) if path else (label, resolve_gguf(label, app.registry)))
    if chosen:
        return chosen
    chosen.append((DEFAULT_LOCAL_MODEL, resolve_gguf(DEFAULT_LOCAL_MODEL, app.registry)))
    for spec in app.registry.for_role("llm-local"):
        if spec.name != DEFAULT_LOCAL_MODEL and (spec.size_mb or 0) < 1000:
            try:
                chosen.append((spec.name, resolve_gguf(spec.name, app.registry)))
            except Exception:  # noqa: BLE001 - not installed: not measured
                print(f"{spec.name}: not installed, not measured")
    return chosen


def _bench(label: str, path: Path, args: argparse.Namespace, lines: list[dict[str, Any]]) -> Row:
    from tutor_app.core.cancel import CancelToken
    from tutor_app.errors import TutorError
    from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions
    from tutor_app.settings import TutorSettings
    from tutor_app.tutor.prompts import PromptInputs
    from tutor_app.tutor.reply_stream import generate, reply_request
    from tutor_app.tutor.turn import StageClock

    row = Row(label, round(path.stat().st_size / 1e6, 0) if path.is_file() else 0)
    model = LlamaChatModel(path, LlamaOptions(max_tokens=80, threads=args.threads, chat_format=args.chat_format))
    try:
        model.load()
        list(model.stream("You are a tutor.", [ChatMessage("user", "Hello!")]))  # warm-up
    except TutorError as exc:
        row.error = str(exc)
        return row
    timed = _Timed(model)
    for i, item in enumerate(lines):
        inputs = PromptInputs(tutor=TutorSettings(), user_text=item["line"])
        request = reply_request(inputs, compact=True, turn_index=i)
        request.attempts = args.attempts or request.attempts
        timed.first = {}
        gen = generate(lambda: timed, request, None, CancelToken(), StageClock())
        if not timed.first:  # answered by a rule: the model's own reply is still measured
            list(timed.stream(request.prompt.system_parts, request.prompt.messages))
        raw = timed.first.get("text", "")
        first = _sentences(raw)
        row.n += 1
        row.parrot += any(_parrots(s, item["line"]) for s in first)
        row.recast += _recast(raw, item["fixed"])
        row.nonsense += _nonsense(raw, item["line"])
        row.heard_parrot += any(_parrots(s, item["line"]) for s in _sentences(gen.text))
        row.heard_recast += _recast(gen.text, item["fixed"])
        row.fallback += gen.text == request.fallback
        row.rule += bool(request.lead or request.answer)
        row.heard_nonsense += gen.text != request.fallback and _nonsense(gen.text, item["line"])
        if "first_token_s" in timed.first:
            row.first_token_s.append(timed.first["first_token_s"])
            tokens = len(model.load().tokenize(raw.encode(), add_bos=False, special=False))
            gen_s = timed.first["seconds"] - timed.first["first_token_s"]
            if tokens > 1 and gen_s > 0:
                row.tokens_per_s.append((tokens - 1) / gen_s)
        if args.show:
            print(f"  [{label}] {item['line']}\n      first: {raw.strip()[:160]!r}\n      heard: {gen.text[:160]!r}")
    model.close()
    return row


def _parrots(sentence: str, line: str) -> bool:
    """The learner's line said back as the tutor's own (tutor/parrot.py; its stock-line
    kind counts as nonsense here)."""
    from tutor_app.tutor.parrot import CANNED, ParrotCheck

    verdict = ParrotCheck([line]).check(sentence)
    return verdict is not None and verdict.kind != CANNED


def _sentences(text: str) -> list[str]:
    from tutor_app.core.sentences import SentenceSplitter

    splitter = SentenceSplitter()
    return [*splitter.feed(text), *splitter.flush()]


def _norm(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9']+", text.lower().replace("\u2019", "'")))


def _recast(reply: str, fixed: list[str]) -> bool:
    said = _norm(reply)
    return any(_norm(f) in said for f in fixed)


# Canned assistant lines a small model answers a learner's sentence with.
_CANNED = re.compile(r"sorry for your loss|can't help you|cannot help you|don't have the ability|"
                     r"can't speak|don't speak|the learner|the tutor|as an ai|my name is (?!\w+ too)", re.IGNORECASE)


def _nonsense(reply: str, line: str) -> bool:
    """Empty, mostly not English letters, a canned assistant line ("I'm sorry for your
    loss", "I can't help you", the tutor naming itself), or off topic (no content word of
    the learner's line and no "you": a reply about something else)."""
    from tutor_app.tutor.parrot import content_words, words

    text = reply.strip()
    if not text:
        return True
    letters = [c for c in text if c.isalpha()]
    if not letters or sum(c.isascii() for c in letters) < 0.9 * len(letters):
        return True
    if _CANNED.search(text) or _canned(text):
        return True
    tokens = words(text)
    return not (content_words(tokens) & content_words(words(line))) and not {"you", "your"} & set(tokens)


def _canned(text: str) -> bool:
    from tutor_app.tutor.parrot import CANNED, ParrotCheck

    check = ParrotCheck([])
    return any((v := check.check(s)) is not None and v.kind == CANNED for s in _sentences(text))


def _print(rows: list[Row]) -> None:
    print("\nfirst sample = the model's own reply; heard = what the learner hears: a rule's recast or answer first "
          "(rule), the model's sentences that pass the parrot check, else the fallback (not counted as nonsense)")
    print(f"{'model':28} {'MB':>5} | {'parrot':>7} {'recast':>7} {'nonsense':>8} | {'heard: parrot':>13} "
          f"{'recast':>7} {'nonsense':>8} {'fallback':>8} {'rule':>5} | {'1st token ms':>12} {'tok/s':>6}")
    for r in rows:
        if r.error:
            print(f"{r.label:28} {r.size_mb:5.0f} | not measured: {r.error}")
            continue

        def pct(k: int) -> str:
            return f"{100 * k / max(1, r.n):6.0f}%"

        print(f"{r.label:28} {r.size_mb:5.0f} | {pct(r.parrot)} {pct(r.recast)} {pct(r.nonsense):>8} | "
              f"{pct(r.heard_parrot):>13} {pct(r.heard_recast)} {pct(r.heard_nonsense):>8} {pct(r.fallback):>8} {pct(r.rule):>5} | "
              f"{1000 * p50(r.first_token_s):12.0f} {p50(r.tokens_per_s):6.1f}")
