"""`tutor-app bench llm`: the bundled local model (SmolLM2-135M Q4_1) through llama.cpp
against the previous transformers path in the same run (load, first token, tokens/s,
first sentence), then call-end extraction on the scripted learner calls in
bench/data/llm_calls.json: how many stated facts land in the profile (the model alone,
the rules alone, both merged) and how long a real `end-call` takes (extraction, merge,
review, report); and the model answering scripted calls through the app's engine: first
token and first sentence per turn, prompt tokens evaluated and reused (bench/llm_turns.py).
Prints; never asserts.

Targets (2-core CPU): end-call <= 20 s with the bundled model; a turn's first sentence
<= 1.5 s.
"""
from __future__ import annotations

import argparse
import json
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from tutor_app.bench.common import machine_line, p50
from tutor_app.core.types import ChatMessage

CALLS_FILE = Path(__file__).parent / "data" / "llm_calls.json"
SYSTEM = "You are a friendly English tutor. Gently correct mistakes. Answer in one or two short sentences."
PROMPTS = ["Yesterday I go to the hospital.", "What is my name?", "I like to play tennis in weekend.",
           "Can you help me practise for a job interview?", "My sister she is a teacher in Busan."]
PARTS = ("runtime", "turns", "extraction")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--max-tokens", type=int, default=64, help="tokens per reply in the runtime comparison")
    parser.add_argument("--calls", type=int, default=0, help="scripted calls to extract (0 = all)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the transformers path")
    parser.add_argument("--turns", type=int, default=6, help="learner lines per scripted call (bench/llm_turns.py)")
    parser.add_argument("--no-prefill", action="store_true",
                        help="turns: no prefill of the prompt's stable start when a call starts")
    parser.add_argument("--only", choices=PARTS, default=None, help="run one part: " + ", ".join(PARTS))
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.llm.factory import DEFAULT_LOCAL_MODEL, resolve_gguf
    from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions

    print(machine_line())
    gguf = resolve_gguf(DEFAULT_LOCAL_MODEL, app.registry)
    summary: dict[str, Any] = {"model": gguf.name}
    parts = PARTS if args.only is None else (args.only,)
    if "runtime" in parts:
        model = LlamaChatModel(gguf, LlamaOptions(max_tokens=args.max_tokens))
        model.load()
        print(f"llama.cpp: {model.plan.describe() if model.plan else '?'}")
        rows = {"llama.cpp": _runtime_llama(model, args.max_tokens)}
        if not args.no_baseline:
            rows["transformers"] = _runtime_transformers(gguf, args.max_tokens)
        _print_runtimes(rows)
        summary["runtime"] = rows
    if "turns" in parts:
        from tutor_app.bench.llm_turns import run_turns

        summary["turns"] = run_turns(app, args.turns, prefill=not args.no_prefill)
    if "extraction" in parts:
        summary["extraction"] = _extraction(app, gguf, args.calls)
    if args.json:
        print(json.dumps(summary))
    return 0


# -- runtime comparison ----------------------------------------------------------------
def _runtime_llama(model, max_tokens: int) -> dict[str, Any]:
    llama = model.load()
    list(model.stream(SYSTEM, [ChatMessage("user", "Hello!")]))  # warm-up, as a call's first turn is
    runs = [_timed(lambda p=p: model.stream(SYSTEM, [ChatMessage("user", p)]),
                   lambda text: len(llama.tokenize(text.encode(), add_bos=False, special=False)))
            for p in PROMPTS]
    return _summarise(model.load_seconds, runs)


def _runtime_transformers(gguf: Path, max_tokens: int) -> dict[str, Any]:
    try:
        from tutor_app.bench.llm_transformers import TransformersBaseline
    except ImportError as exc:  # pragma: no cover - the bench extra is missing
        return {"error": str(exc)}
    with tempfile.TemporaryDirectory(prefix="tutor-bench-hf-") as tmp:
        try:
            base = TransformersBaseline(gguf, Path(tmp))
            base.convert()
            base.load()
        except Exception as exc:  # noqa: BLE001 - the baseline is optional: say why it is missing
            return {"error": f"{type(exc).__name__}: {exc}"}
        list(base.stream(SYSTEM, "Hello!", 8))
        runs = [_timed(lambda p=p: base.stream(SYSTEM, p, max_tokens), base.count_tokens) for p in PROMPTS]
        out = _summarise(base.load_seconds, runs)
        out["convert_s"] = round(base.convert_seconds, 2)
        return out


def _timed(make_stream, count_tokens) -> dict[str, Any]:
    from tutor_app.core.sentences import SentenceSplitter

    splitter = SentenceSplitter()
    start = time.perf_counter()
    first = sentence = None
    parts: list[str] = []
    for delta in make_stream():
        now = time.perf_counter() - start
        first = now if first is None else first
        parts.append(delta)
        if sentence is None and splitter.feed(delta):
            sentence = now
    total = time.perf_counter() - start
    text = "".join(parts)
    tokens = count_tokens(text) if text else 0
    gen = total - (first or total)
    return {"first_token_s": first, "first_sentence_s": sentence if sentence is not None else total,
            "tokens_per_s": (tokens - 1) / gen if tokens > 1 and gen > 0 else float("nan"), "text": text}


def _summarise(load_s: float, runs: list[dict[str, Any]]) -> dict[str, Any]:
    return {"load_s": round(load_s, 2),
            "first_token_ms": round(1000 * p50([r["first_token_s"] for r in runs if r["first_token_s"]]), 0),
            "first_sentence_ms": round(1000 * p50([r["first_sentence_s"] for r in runs]), 0),
            "tokens_per_s": round(p50([r["tokens_per_s"] for r in runs]), 1),
            "sample": runs[0]["text"].strip()[:120]}


def _print_runtimes(rows: dict[str, dict[str, Any]]) -> None:
    print(f"\n{len(PROMPTS)} tutor prompts, p50 | load s | first token ms | first sentence ms | tokens/s")
    for name, r in rows.items():
        if "error" in r:
            print(f"{name:13} not measured: {r['error']}")
            continue
        extra = f" (+ {r['convert_s']} s converting the GGUF once)" if "convert_s" in r else ""
        print(f"{name:13} | {r['load_s']:6.2f}{extra} | {r['first_token_ms']:6.0f} | "
              f"{r['first_sentence_ms']:6.0f} | {r['tokens_per_s']:6.1f}")
        print(f"{'':13}   e.g. {r['sample']!r}")


# -- extraction and end-call -----------------------------------------------------------
def _extraction(app, gguf: Path, limit: int) -> dict[str, Any]:
    from tutor_app.llm.errors import LLMError
    from tutor_app.llm.llama_backend import LlamaChatModel
    from tutor_app.tutor import extract
    from tutor_app.tutor.extract_rules import extract_by_rules

    calls = json.loads(CALLS_FILE.read_text(encoding="utf-8"))["calls"]
    calls = calls[:limit] if limit > 0 else calls
    model = LlamaChatModel(gguf)
    model.load()
    keys = ("model", "rules", "merged", "end_call")
    scores = {part: dict.fromkeys((*keys, "fields", "calls"), 0) for part in ("tuned", "heldout")}
    schema_ok = 0
    wrong = {"model": 0, "end_call": 0}  # a name or job stored from a call that stated none
    end_times: list[float] = []
    corrections = 0
    with tempfile.TemporaryDirectory(prefix="tutor-bench-llm-") as tmp:
        engine = _engine(app, tmp, model)
        for call in calls:
            messages = [ChatMessage(role, text) for user, tutor in call["turns"]
                        for role, text in (("user", user), ("assistant", tutor))]
            expect = call["expect"]
            empty = call.get("must_stay_empty", [])
            score = scores["heldout" if call.get("heldout") else "tuned"]
            score["fields"] += len(expect)
            score["calls"] += 1
            rules = extract_by_rules(messages).to_dict()
            try:
                result = extract.extract_facts(model, messages)
                schema_ok += 1
                score["model"] += _hits(result.model_facts.to_dict(), expect)
                score["merged"] += _hits(result.facts.to_dict(), expect)
                wrong["model"] += sum(bool(result.model_facts.to_dict()[k]) for k in empty)
            except (LLMError, ValueError):
                score["merged"] += _hits(rules, expect)
            score["rules"] += _hits(rules, expect)
            outcome, seconds = _end_call(engine, call["id"], messages)
            end_times.append(seconds)
            score["end_call"] += _hits(outcome.extracted, expect)
            wrong["end_call"] += sum(bool(outcome.extracted.get(k)) for k in empty)
            corrections += len(outcome.report.corrections) if outcome.report else 0
    print(f"\ncall-end extraction, {len(calls)} scripted calls (name, job, an interest, a goal each), "
          f"bundled model via llama.cpp; JSON under the schema: {schema_ok}/{len(calls)} answers parsed")
    print(f"  {'facts found':30} {'rules tuned on these':>22} {'held out':>12}")
    for key, label in (("model", "the model alone"), ("rules", "the rules alone"),
                       ("merged", "model + rule floor"), ("end_call", "in the profile after end-call")):
        cells = [f"{s[key]}/{s['fields']} ({100 * s[key] / max(1, s['fields']):.0f} %)"
                 for s in (scores["tuned"], scores["heldout"])]
        print(f"  {label:30} {cells[0]:>22} {cells[1]:>12}")
    negatives = sum(1 for c in calls if c.get("must_stay_empty"))
    print(f"  calls stating no name or job ({negatives}): a name/job stored anyway: {wrong['end_call']} "
          f"(the model's raw answer had {wrong['model']} after the checks)")
    print(f"  end-call (extraction + merge + review + report): p50 {p50(end_times):.1f} s, "
          f"max {max(end_times):.1f} s (target <= 20 s); corrections in the reports: {corrections}")
    return {"calls": len(calls), "schema_ok": schema_ok, **scores, "wrong_name_or_job": wrong,
            "end_call_p50_s": round(p50(end_times), 2), "end_call_max_s": round(max(end_times), 2),
            "corrections": corrections}


def _hits(extracted: dict[str, Any], expect: dict[str, str]) -> int:
    hits = 0
    for key, keyword in expect.items():
        value = extracted.get(key) or ""
        text = " | ".join(value) if isinstance(value, list) else str(value)
        hits += keyword.lower() in text.lower()
    return hits


def _engine(app, tmp: str, model):
    from tutor_app.memory.storage.store import open_store
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.tutor.engine import EngineServices, TutorEngine

    settings = Settings.load(AppPaths.resolve(tmp))
    store = open_store(settings.paths.db_dir, app.embedder, "bench")
    return TutorEngine(EngineServices(settings=settings, emotion=app.emotion, memory=store,
                                      chat_model=lambda: model))


def _end_call(engine, session: str, messages: list[ChatMessage]):
    """Store the call as a live call would, then time the real `end-call` path."""
    from tutor_app.tutor.lifecycle import process_call

    memory = engine.services.memory
    start = datetime.now(timezone.utc) - timedelta(minutes=5)
    memory.record_call(session, start)
    for i, m in enumerate(messages):
        memory.add_message(session, m.role, m.content, created_at=start + timedelta(seconds=20 * i))
    began = time.perf_counter()
    outcome = process_call(engine, session, None, None, time.time())
    return outcome, time.perf_counter() - began
