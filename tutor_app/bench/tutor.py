"""`tutor-app bench tutor`: one text turn's stages, and time to the first sentence
(and first audio) of the streamed pipeline vs the naive path (whole reply, then
synthesis), in the same run, with the fake Anthropic server at a realistic timing
(default 400 ms to the first token, 40 tokens/s). Prints; never asserts.

Targets (2-core CPU): first sentence ready <= 0.3x the naive path (the whole reply, then
its synthesis); everything except the LLM itself <= 150 ms for a text turn.
"""
from __future__ import annotations

import argparse
import json
import os
import tempfile
import time

from tutor_app.bench.common import TYPICAL_REPLY, fake_server_module, machine_line, p50, percentile

REPLY = TYPICAL_REPLY
TURNS = ["I went hiking on Saturday with my sister.", "The weather was sunny but a bit cold.",
         "We saw many people at the top of the mountain.", "I'm so happy I finally finished the trail!",
         "Next weekend I want to try a longer one.", "Do you remember what my job is?"]
NON_LLM = ("emotion", "guardrail", "memory", "prompt", "persist")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--turns", type=int, default=12, help="measured turns (after 2 warm-up turns)")
    parser.add_argument("--first-token-ms", type=float, default=400.0)
    parser.add_argument("--tokens-per-s", type=float, default=40.0)
    parser.add_argument("--no-tts", action="store_true", help="skip the first-audio comparison")
    parser.add_argument("--json", action="store_true", help="also print one JSON summary line")


def run(args: argparse.Namespace, app) -> int:
    fakes = fake_server_module()
    print(machine_line())
    print(f"fake LLM: first token {args.first_token_ms:.0f} ms, {args.tokens_per_s:.0f} tokens/s; "
          f"{args.turns} measured text turns")
    tts = None if args.no_tts else app.tts
    if tts is not None:
        tts.warm_up()
    with fakes.FakeAnthropicServer(timing=fakes.Timing.realistic(args.first_token_ms, args.tokens_per_s),
                                   default=fakes.Reply(REPLY)) as server, \
            tempfile.TemporaryDirectory(prefix="tutor-bench-") as tmp:
        os.environ["ANTHROPIC_BASE_URL"] = server.url
        os.environ["ANTHROPIC_API_KEY"] = fakes.FAKE_API_KEY
        engine = _engine(app, tmp)
        try:
            rows = _measure(engine, tts, args.turns)
        finally:
            # Background memory writes finish before the temporary data dir goes.
            engine.services.memory.close()
    summary = _report(rows)
    if args.json:
        print(json.dumps(summary))
    return 0


def _engine(app, tmp: str):
    """A throw-away data dir and the app's own models, with Claude = the fake server."""
    from tutor_app.llm.factory import load_chat_model
    from tutor_app.memory.storage.store import open_store
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.tutor.engine import EngineServices, TutorEngine

    settings = Settings.load(AppPaths.resolve(tmp))
    settings.llm.backend, settings.llm.fallback_to_local = "anthropic", False
    model = load_chat_model(settings, app.registry)
    model.warm_up()
    store = open_store(settings.paths.db_dir, app.embedder, "bench")
    store.add_many([{"text": t, "category": c} for t, c in (
        ("I work as a nurse at a hospital in Seoul.", "occupation"), ("My name is Minji.", "name"),
        ("I love hiking on weekends.", "interest"), ("I want to pass a job interview in English.", "goal"))])
    return TutorEngine(EngineServices(settings=settings, emotion=app.emotion, memory=store,
                                      chat_model=lambda: model))


def _measure(engine, tts, turns: int) -> list[dict[str, float]]:
    call = engine.start_call("bench")
    rows = []
    for i in range(turns + 2):
        text = TURNS[i % len(TURNS)]
        start = time.perf_counter()
        first_audio: list[float] = []

        def on_sentence(sentence: str) -> None:
            if tts is not None and not first_audio:
                next(iter(tts.synthesize(sentence)))  # the first sentence's audio is ready
                first_audio.append((time.perf_counter() - start) * 1000)

        result = call.turn(text, on_sentence=on_sentence)
        done = (time.perf_counter() - start) * 1000
        row = dict(result.timings_ms)
        row["first_audio"] = first_audio[0] if first_audio else float("nan")
        # Naive path: the whole reply first (the turn's own end), then synthesis of all of it.
        if tts is not None:
            t0 = time.perf_counter()
            for _ in tts.synthesize(result.reply):
                pass
            row["naive_first_audio"] = done + (time.perf_counter() - t0) * 1000
        row["naive_first_sentence"] = done
        row["non_llm"] = sum(row.get(k, 0.0) for k in NON_LLM)
        if i >= 2:
            rows.append(row)
    return rows


def _report(rows: list[dict[str, float]]) -> dict[str, float]:
    def stat(key: str) -> tuple[float, float]:
        values = [r[key] for r in rows if key in r and r[key] == r[key]]
        return p50(values), percentile(values, 95)

    print(f"\n{'stage (ms)':32} {'p50':>9} {'p95':>9}")
    for key in ("emotion", "guardrail", "memory", "prompt", "first_token", "first_sentence", "llm",
                "persist", "total", "non_llm", "first_audio", "naive_first_sentence", "naive_first_audio"):
        if any(key in r for r in rows):
            a, b = stat(key)
            print(f"{key:32} {a:9.1f} {b:9.1f}")
    fs, naive_text = stat("first_sentence")[0], stat("naive_first_sentence")[0]
    fa, naive = stat("first_audio")[0], stat("naive_first_audio")[0]
    summary = {"first_sentence_ms_p50": round(fs, 1), "first_audio_ms_p50": round(fa, 1),
               "naive_whole_reply_ms_p50": round(naive_text, 1),
               "naive_first_audio_ms_p50": round(naive, 1),
               "first_sentence_vs_naive": round(fs / naive, 3) if naive == naive and naive else None,
               "first_audio_vs_naive": round(fa / naive, 3) if naive == naive and naive else None,
               "non_llm_ms_p50": round(stat("non_llm")[0], 1)}
    print("\nnaive path = the whole reply, then its synthesis (first audio of the naive path)")
    print(f"first sentence ready / naive: {summary['first_sentence_vs_naive']} (target <= 0.3)")
    print(f"first audio / naive: {summary['first_audio_vs_naive']}")
    print(f"everything but the LLM, p50: {summary['non_llm_ms_p50']} ms (target <= 150)")
    return summary
