"""`tutor-app bench emotion`: quality on GoEmotions dev and speed on this machine.

Prints model load time, dev macro-/micro-F1 with per-label F1 (the model's own
thresholds), latency p50/p95 at batch 1 (warm) and throughput at batch 32.
It reports; it never asserts.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--data", type=Path, default=None,
                        help="GoEmotions folder with dev.tsv (env TUTOR_APP_GOEMOTIONS_DIR); "
                             "without it only speed is measured")
    parser.add_argument("--limit", type=int, default=0, help="score only the first N dev rows (0: all)")
    parser.add_argument("--runs", type=int, default=300, help="batch-1 latency samples")
    parser.add_argument("--batch-size", type=int, default=32, help="batch size for throughput")
    parser.add_argument("--json", action="store_true", help="also print one JSON object with every number")


SAMPLE = [
    "Thank you so much, that really helped me!", "I'm so angry they cancelled my flight again.",
    "I passed my job interview today, I can't believe it!", "I miss my grandmother every day.",
    "The meeting is at three o'clock.", "Wow, I didn't expect that at all.",
    "I'm a bit nervous about my presentation tomorrow.", "Could you explain that word again?",
]


def _percentile(values: list[float], q: float) -> float:
    import numpy as np

    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def run(args: argparse.Namespace, app) -> int:
    import numpy as np

    from tutor_app.core.types import EMOTION_LABELS
    from tutor_app.emotion.data import multi_hot, read_tsv
    from tutor_app.emotion.metrics import f1_report
    from tutor_app.emotion.scorer import load_scorer, registry_of
    from tutor_app.emotion.train import default_data_dir

    result: dict = {}
    registry = registry_of(app)
    t0 = time.perf_counter()
    scorer = load_scorer(app.settings, registry)
    result["load_seconds"] = time.perf_counter() - t0
    result["scorer"] = getattr(scorer, "name", type(scorer).__name__)
    print(f"emotion scorer: {result['scorer']}   load {result['load_seconds'] * 1000:.0f} ms")

    data_dir = getattr(args, "data", None) or default_data_dir()
    texts = list(SAMPLE)
    if data_dir is not None and (Path(data_dir) / "dev.tsv").is_file():
        rows = read_tsv(Path(data_dir) / "dev.tsv")
        if getattr(args, "limit", 0):
            rows = rows[:args.limit]
        texts = [r.text for r in rows]
        probs = scorer.probabilities(texts, batch_size=64)
        pred = (probs >= scorer.thresholds[None, :]).astype(np.int8)
        rep = f1_report(multi_hot(rows), pred)
        result.update({"dev_rows": len(rows), "macro_f1": rep.macro_f1, "micro_f1": rep.micro_f1,
                       "per_label_f1": dict(zip(EMOTION_LABELS, rep.per_label))})
        print(f"dev ({len(rows)} rows): macro-F1 {rep.macro_f1:.4f}   micro-F1 {rep.micro_f1:.4f}")
        for lab, f in sorted(zip(EMOTION_LABELS, rep.per_label), key=lambda x: -x[1]):
            print(f"  {lab:<15} {f:.3f}")
    else:
        print("dev.tsv not found (pass --data DIR): quality not measured")

    # Batch 1, warm: the live-call case (one utterance per turn).
    for t in texts[:10]:
        scorer.score(t)
    lat = []
    for i in range(max(1, getattr(args, "runs", 300))):
        t1 = time.perf_counter()
        scorer.score(texts[i % len(texts)])
        lat.append((time.perf_counter() - t1) * 1000)
    result["latency_ms_p50"], result["latency_ms_p95"] = _percentile(lat, 50), _percentile(lat, 95)
    print(f"latency batch 1: p50 {result['latency_ms_p50']:.2f} ms   p95 {result['latency_ms_p95']:.2f} ms "
          f"({len(lat)} runs)")

    bs = max(1, getattr(args, "batch_size", 32))
    pool = (texts * (1 + (bs * 8) // max(1, len(texts))))[: bs * 8]
    t1 = time.perf_counter()
    for s in range(0, len(pool), bs):
        scorer.score_batch(pool[s:s + bs])
    secs = time.perf_counter() - t1
    result["throughput_per_s_batch"] = len(pool) / secs if secs else float("inf")
    print(f"throughput batch {bs}: {result['throughput_per_s_batch']:.0f} texts/s")
    if getattr(args, "json", False):
        print(json.dumps({k: (round(v, 4) if isinstance(v, float) else v) for k, v in result.items()}))
    return 0
