"""Retrieval quality on a hand-written multi-session dataset (bench/data/retrieval_eval.json):
recall@3/@5 of the recall path vs plain dense cosine over the same memories, and how
often each stays silent when the answer is not in memory."""
from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "retrieval_eval.json"
# Plain dense with a threshold, for the abstention comparison: MiniLM cosine 0.35 is just
# above the largest non-answer cosine on the calibration split (0.34).
DENSE_ONLY_THRESHOLD = 0.35


@dataclass
class Scores:
    answerable: int = 0
    unanswerable: int = 0
    hit3: int = 0
    hit5: int = 0
    rank3: int = 0  # our ranking without the acceptance gate
    rank5: int = 0
    dense3: int = 0
    dense5: int = 0
    silent: int = 0  # unanswerable questions our path returned nothing for
    dense_silent: int = 0  # unanswerable: dense with DENSE_ONLY_THRESHOLD returned nothing
    dense_t3: int = 0  # answerable: dense with the threshold has the answer in its top 3
    junk: int = 0  # questions whose top 3 (ours) holds small talk that answers nothing
    dense_junk: int = 0  # ...the same for dense with DENSE_ONLY_THRESHOLD
    misses: list[str] = field(default_factory=list)

    def row(self) -> dict[str, Any]:
        a = max(self.answerable, 1)
        u = max(self.unanswerable, 1)
        return {"questions": self.answerable + self.unanswerable,
                "recall@3": round(self.hit3 / a, 3), "recall@5": round(self.hit5 / a, 3),
                "rank_only_recall@3": round(self.rank3 / a, 3), "rank_only_recall@5": round(self.rank5 / a, 3),
                "dense_recall@3": round(self.dense3 / a, 3), "dense_recall@5": round(self.dense5 / a, 3),
                "abstain": round(self.silent / u, 3), "dense_abstain": 0.0,
                "junk@3": round(self.junk / max(self.answerable + self.unanswerable, 1), 3),
                f"dense@{DENSE_ONLY_THRESHOLD}_junk@3": round(self.dense_junk / max(self.answerable + self.unanswerable, 1), 3),
                f"dense@{DENSE_ONLY_THRESHOLD}_recall@3": round(self.dense_t3 / a, 3),
                f"dense@{DENSE_ONLY_THRESHOLD}_abstain": round(self.dense_silent / u, 3)}


_SUBJECTS = ["The weather", "My commute", "Lunch", "The meeting", "This morning", "The TV show", "My day",
             "The class", "The bus ride", "Dinner", "The news", "The weekend", "My phone", "The game",
             "The new cafe", "The traffic", "Work", "The movie", "My neighbour", "The gym", "The shopping trip"]
_PREDICATES = ["was pretty boring", "was better than I expected", "made me a little tired", "was totally fine",
               "took longer than usual", "was really noisy", "felt kind of long", "was okay I guess",
               "was a bit stressful", "was surprisingly fun", "was too crowded", "went by quickly",
               "was nothing special", "left me hungry", "was cancelled at the last minute"]
_TAILS = ["", " to be honest", " again", " as usual", " this time", " for once", " somehow", " I think"]


def distractors(n: int, seed: int) -> list[str]:
    """Everyday small talk that states no lasting fact: what a real memory also holds."""
    import random

    rng = random.Random(seed)
    out = set()
    while len(out) < n:
        out.add(f"{rng.choice(_SUBJECTS)} {rng.choice(_PREDICATES)}{rng.choice(_TAILS)}.")
    return sorted(out)


def load_learners(split: str | None = None) -> list[dict[str, Any]]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    return [lr for lr in data["learners"] if split in (None, "all", lr["split"])]


def build(embedder, root: Path, split: str = "eval", n_distractors: int = 150) -> list[tuple]:
    """One store per learner under `root`: (store, memory id -> line id, questions, now)."""
    from tutor_app.memory.storage.schema import utcnow
    from tutor_app.memory.storage.store import open_store

    now = utcnow()
    built = []
    for lr in load_learners(split):
        store = open_store(root / "db", embedder, f"eval-{lr['name']}")
        items, ids = [], []
        for s_i, sess in enumerate(lr["sessions"]):
            for j, (lid, text) in enumerate(sess["lines"].items()):
                t = now + timedelta(days=sess["day"], minutes=j)
                items.append({"text": text, "created_at": t, "session_id": f"s{s_i}", "source": "gate"})
                ids.append(lid)
        for j, text in enumerate(distractors(n_distractors, seed=len(lr["name"]))):
            t = now - timedelta(days=40 - (j * 38) / max(n_distractors, 1), minutes=j)
            items.append({"text": text, "created_at": t, "session_id": "filler", "source": "gate"})
            ids.append(f"filler{j}")
        mems = store.add_many(items)
        built.append((store, {m.id: lid for m, lid in zip(mems, ids)}, lr["questions"], now))
    return built


def score(built: list[tuple], verbose: bool = False) -> Scores:
    import numpy as np

    sc = Scores()
    for store, by_mem, questions, now in built:
        idx = store.index()
        vecs, mem_ids = idx.vectors, [r.id for r in idx.rows]
        for q in questions:
            gold = set(q["gold"])
            res = store.recall(q["q"], k=5, now=now, touch=False)
            got = [by_mem[h.id] for h in res.hits]
            cos = vecs @ store.embedder.embed_one(q["q"])
            order = [by_mem[mem_ids[i]] for i in np.argsort(-cos)[:5]]
            sc.junk += any(g.startswith("filler") for g in got[:3])
            sc.dense_junk += any(by_mem[mem_ids[i]].startswith("filler") for i in np.argsort(-cos)[:3]
                                 if cos[i] >= DENSE_ONLY_THRESHOLD)
            if gold:
                sc.answerable += 1
                sc.hit3 += bool(gold & set(got[:3]))
                sc.hit5 += bool(gold & set(got[:5]))
                ranked = [by_mem[h.id] for h in store.recall(q["q"], k=5, now=now, touch=False, gate=False).hits]
                sc.rank3 += bool(gold & set(ranked[:3]))
                sc.rank5 += bool(gold & set(ranked[:5]))
                sc.dense3 += bool(gold & set(order[:3]))
                sc.dense5 += bool(gold & set(order[:5]))
                top3 = np.argsort(-cos)[:3]
                sc.dense_t3 += bool(gold & {by_mem[mem_ids[i]] for i in top3 if cos[i] >= DENSE_ONLY_THRESHOLD})
                if not gold & set(got[:3]):
                    sc.misses.append(f"{q['q']} -> {got[:3]} (gold {sorted(gold)})")
            else:
                sc.unanswerable += 1
                sc.silent += not got
                sc.dense_silent += float(cos.max()) < DENSE_ONLY_THRESHOLD
                if got:
                    sc.misses.append(f"{q['q']} -> {got[:3]} (should be silent)")
            if verbose:
                print(f"{q['q']!r}: ours {got[:5]} dense {order[:5]} gold {sorted(gold)} "
                      f"{[(h.reason, round(h.score, 3), round(h.cosine, 3)) for h in res.hits[:3]]}")
    return sc


def evaluate(embedder, split: str = "eval", verbose: bool = False, n_distractors: int = 150) -> Scores:
    with tempfile.TemporaryDirectory(prefix="tutor-eval-") as tmp:
        built = build(embedder, Path(tmp), split, n_distractors)
        try:
            return score(built, verbose)
        finally:
            for store, *_ in built:
                store.close()


TUNING_SPLITS = ("calibration", "eval")  # "heldout" is never used for tuning


def calibrate(embedder, n_distractors: int = 150) -> dict[str, Any]:
    """Grid-search the acceptance constants of recall.py on the tuning splits:
    maximise answerable recall@3 + half the abstention on unanswerable questions + half
    the share of questions without small-talk junk in the top 3. Recall weighs most: a
    memory the tutor misses is worse than a near-topic one it is shown (the prompt's
    don't-know rule handles those)."""
    import itertools

    from tutor_app.memory.retrieval import recall as R

    keys = ("DENSE_THRESHOLD", "Z_MIN", "MARGIN_MIN", "COS_MIN")
    grid = {"DENSE_THRESHOLD": [0.40, 0.45, 0.50, 0.55], "Z_MIN": [2.5, 3.0, 3.5, 4.0],
            "MARGIN_MIN": [0.0, 0.05, 0.1, 0.15], "COS_MIN": [0.15, 0.2, 0.25, 0.3]}
    saved = {k: getattr(R, k) for k in keys}
    results = []
    with tempfile.TemporaryDirectory(prefix="tutor-cal-") as tmp:
        built = [b for split in TUNING_SPLITS for b in build(embedder, Path(tmp) / split, split, n_distractors)]
        try:
            for combo in itertools.product(*(grid[k] for k in keys)):
                for k, v in zip(keys, combo):
                    setattr(R, k, v)
                sc = score(built)
                a, u = sc.hit3 / max(sc.answerable, 1), sc.silent / max(sc.unanswerable, 1)
                clean = 1 - sc.junk / max(sc.answerable + sc.unanswerable, 1)
                results.append((round(a + 0.5 * u + 0.5 * clean, 4), combo))
        finally:
            for k, v in saved.items():
                setattr(R, k, v)
            for store, *_ in built:
                store.close()
    # The small calibration split leaves a plateau of equally good settings: take the
    # median of each constant over the plateau rather than an arbitrary corner of it.
    top = max(r[0] for r in results)
    plateau = [c for o, c in results if o == top]
    chosen = {k: sorted(c[i] for c in plateau)[len(plateau) // 2] for i, k in enumerate(keys)}
    best = (top, chosen, {"plateau_size": len(plateau), "grid_size": len(results)})
    return {"best": best[1], "objective": best[0], **best[2]}
