"""`tutor-app bench llm --only turns`: the bundled local model answering scripted learner
lines the way a call does (the app's engine: emotion, memory recall, the short prompt for
a small model, the reply check), two calls in a row with a call-end extraction between
them (what the app runs after a call; it fills the model's context with another prompt).

Per turn, in ms from the turn's start (the learner's words in hand): the model's first
token, the first sentence heard (a sentence the app's rules say at once counts), and the
model's own first sentence; and, from the llama.cpp backend's counters, how many of the
prompt's tokens llama.cpp evaluated and how many it reused from its cache. Before each
turn the read ahead of its prompt (llm/read_ahead.py) is let finish, as the learner's
speaking time lets it in a call.

Target (issue 31): the first sentence of a turn <= 1.5 s offline. Prints; never asserts.
"""
from __future__ import annotations

import tempfile
import time
from typing import Any

from tutor_app.bench.common import p50, percentile

BEFORE_MODEL = ("emotion", "guardrail", "memory", "prompt")  # the turn's stages before the model is asked

# One learner per call; a mix of lines the rules recast at once and lines only the model answers.
CALLS = [
    ["Hi! My name is Minji and I work at a bank in Seoul.", "Yesterday I go to the cinema with my friend.",
     "The movie was very interest and a little scary.", "After the movie we eat spicy noodles.",
     "My friend she like horror movies very much.", "Next week I will visit to Busan with my family."],
    ["Hello again, it's Minji. I am tired today.", "I have many meetings at work this week.",
     "My boss want a report until Friday.", "I think I need more practice for presentations.",
     "Can you help me with some business words?", "Thank you, that is very helpful for me."],
]


def run_turns(app, turns: int, prefill: bool = True) -> dict[str, Any]:
    from tutor_app.tutor import extract

    with tempfile.TemporaryDirectory(prefix="tutor-bench-turns-") as tmp:
        engine, model = _engine(app, tmp)
        try:
            started = time.perf_counter()
            model.warm_up()  # what a call's warm-up does before the first turn
            print(f"local model {model.path.name}: warm-up {1000 * (time.perf_counter() - started):.0f} ms "
                  f"({model.plan.describe() if model.plan else '?'})")
            rows: list[dict[str, Any]] = []
            for number, lines in enumerate(CALLS, 1):
                call = engine.start_call(f"bench-{number}", off_record=True)
                if prefill:
                    _prefill(call, model)
                messages = []
                for i, text in enumerate(lines[:max(1, turns)]):
                    row = _turn(call, model, text)
                    row.update(call=number, turn=i + 1)
                    rows.append(row)
                    messages += [("user", text), ("assistant", row["reply"])]
                _print_call(number, [r for r in rows if r["call"] == number])
                if number < len(CALLS):
                    from tutor_app.core.types import ChatMessage

                    began = time.perf_counter()
                    extract.extract_facts(model, [ChatMessage(r, t) for r, t in messages])
                    print(f"  call-end extraction between the calls: {time.perf_counter() - began:.1f} s")
        finally:
            engine.services.memory.close()
    return _summary(rows)


def _prefill(call, model) -> None:
    """What a call's warm-up can do for a local model before the first turn (the greeting
    plays meanwhile): evaluate the stable start of this call's prompt."""
    from tutor_app.tutor.prompts import PromptInputs, stable_system

    inputs = PromptInputs(tutor=call.engine.settings.tutor, user_text="",
                          profile=call.engine.services.memory.profile_view(), practice_plan=call.practice_plan)
    began = time.perf_counter()
    stats = model.prefill(stable_system(inputs, compact=model.compact_prompt))
    print(f"  prefill at the call's start: {1000 * (time.perf_counter() - began):.0f} ms, "
          f"{stats.evaluated} of {stats.stable_tokens} tokens evaluated{' (restored)' if stats.restored else ''}")


def _engine(app, tmp: str):
    """A throw-away data dir, the app's emotion and embedder models, the bundled GGUF."""
    from tutor_app.llm.factory import load_llama
    from tutor_app.memory.storage.store import open_store
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.tutor.engine import EngineServices, TutorEngine

    settings = Settings.load(AppPaths.resolve(tmp))
    settings.llm.backend = "local"
    model = load_llama(settings, app.registry)
    store = open_store(settings.paths.db_dir, app.embedder, "bench")
    engine = TutorEngine(EngineServices(settings=settings, emotion=app.emotion, memory=store,
                                        chat_model=lambda: model))
    return engine, model


def _turn(call, model, text: str) -> dict[str, Any]:
    # In a call the learner takes seconds to say the line: the read ahead of this turn's
    # prompt (llm/read_ahead.py), started after the last reply, has ended by then.
    model.wait_read_ahead(30)
    start = time.perf_counter()
    said: list[float] = []
    result = call.turn(text, on_sentence=lambda _s: said.append(1000 * (time.perf_counter() - start)))
    t = result.timings_ms
    first_token = t.get("first_token")
    own = [ms for ms in said if first_token is not None and ms >= first_token]
    stats = getattr(model, "last_prompt", None)
    return {"before_model": sum(t.get(k, 0.0) for k in BEFORE_MODEL), "first_token": first_token, "first_sentence": t.get("first_sentence"),
            "model_sentence": own[0] if own else None, "reply": result.reply,
            "prompt_tokens": getattr(stats, "prompt_tokens", None),
            "evaluated": getattr(stats, "evaluated", None), "restored": getattr(stats, "restored", None)}


def _fmt(value: Any, digits: int = 0) -> str:
    return "-" if value is None else f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def _print_call(number: int, rows: list[dict[str, Any]]) -> None:
    print(f"\ncall {number} | turn | before the model ms | first token ms | first sentence heard ms | model's first sentence ms | "
          "prompt tokens | evaluated | from the saved prefix")
    for r in rows:
        print(f"       | {r['turn']:4} | {_fmt(r['before_model']):>19} | {_fmt(r['first_token']):>14} | {_fmt(r['first_sentence']):>23} | "
              f"{_fmt(r['model_sentence']):>25} | {_fmt(r['prompt_tokens']):>13} | {_fmt(r['evaluated']):>9} | "
              f"{_fmt(r['restored'])}")


def _summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    print("\nms from the turn's start | p50 | p90 | turn 1 of each call (p50) | later turns (p50)")
    for key in ("before_model", "first_token", "first_sentence", "model_sentence"):
        values = [r[key] for r in rows if r[key] is not None]
        first = [r[key] for r in rows if r[key] is not None and r["turn"] == 1]
        later = [r[key] for r in rows if r[key] is not None and r["turn"] > 1]
        out[key] = {"p50": round(p50(values)), "p90": round(percentile(values, 90)),
                    "turn1_p50": round(p50(first)) if first else None, "later_p50": round(p50(later)) if later else None}
        s = out[key]
        print(f"{key:24} | {s['p50']:5} | {s['p90']:5} | {_fmt(s['turn1_p50']):>25} | {_fmt(s['later_p50']):>17}")
    evaluated = [r["evaluated"] for r in rows if r["evaluated"] is not None]
    prompt = [r["prompt_tokens"] for r in rows if r["prompt_tokens"] is not None]
    if evaluated and prompt:
        out["prompt_tokens_p50"], out["evaluated_p50"] = p50(prompt), p50(evaluated)
        print(f"prompt tokens p50 {p50(prompt):.0f}, evaluated by llama.cpp p50 {p50(evaluated):.0f}")
    return out
