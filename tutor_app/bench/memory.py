"""`tutor-app bench memory`: insert throughput, recall latency (embed + search + merge)
at several sizes next to numpy brute force and LanceDB's own flat search, hard-delete
time, and retrieval quality (recall@3/@5 vs plain dense) on bench/data/retrieval_eval.json.

Big sizes use synthetic vectors/texts (embedding 100k texts with MiniLM would take
minutes); queries are real sentences embedded with MiniLM, distinct per run, so the
embedding is always part of the measured time.
"""
from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from tutor_app.commands import print_json

_WORDS = ("coffee tea latte hiking swim guitar piano nurse teacher doctor exam interview flight busan seoul "
          "london sister brother mother cat dog book movie music soccer tennis bank hospital school project "
          "deadline weekend birthday travel japan pizza kimchi spicy allergy python design meeting").split()
_QUERIES = ["what coffee do I like", "when is my interview", "what's my sister's name", "where do I work",
            "which book am I reading", "what sport do I play", "when is my flight", "what am I allergic to",
            "what music do I like", "where did I travel last year", "what is my cat called",
            "what's my job", "what did I eat for lunch", "who is my manager", "what language do I study"]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--sizes", default="1000,10000,100000", help="memories in the measured profile (comma list)")
    p.add_argument("--others", type=int, default=2, help="other profiles, each with a tenth of the rows")
    p.add_argument("--queries", type=int, default=60, help="recall queries per size")
    p.add_argument("--lance-queries", type=int, default=5, help="LanceDB flat-search queries per size (slow)")
    p.add_argument("--skip-retrieval", action="store_true", help="skip the retrieval-quality run")
    p.add_argument("--calibrate", action="store_true", help="re-run the threshold calibration grid")
    p.add_argument("--json", action="store_true", help="one JSON object per result")


def _pct(xs: list[float], q: float) -> float:
    import numpy as np

    return round(float(np.percentile(np.asarray(xs), q)), 2) if xs else float("nan")


def _queries(n: int, tag: int) -> list[str]:
    # distinct strings, so the embedder's small cache never serves a measured query
    return [f"{_QUERIES[i % len(_QUERIES)]} ({tag}-{i})" for i in range(n)]


def _synthetic(rng, n: int, dim: int):
    import numpy as np

    vecs = rng.standard_normal((n, dim)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    words = rng.integers(0, len(_WORDS), size=(n, 6))
    texts = [f"memo {i} " + " ".join(_WORDS[w] for w in row) for i, row in enumerate(words)]
    return texts, vecs


def _bench_size(app, root: Path, size: int, args, emit) -> None:
    import numpy as np

    from tutor_app.memory.storage.store import open_store

    emb = app.embedder
    rng = np.random.default_rng(size)
    store = open_store(root / f"db{size}", emb, "bench")
    for o in range(args.others):  # other learners in the same tables
        other = open_store(root / f"db{size}", emb, f"other{o}")
        t, v = _synthetic(rng, max(size // 10, 1), emb.dim)
        for s in range(0, len(t), 5000):
            other.add_many([{"text": x} for x in t[s:s + 5000]], vectors=v[s:s + 5000])
        other.close()
    texts, vecs = _synthetic(rng, size, emb.dim)
    batch = 1000
    t0 = time.perf_counter()
    for s in range(0, size, batch):
        store.add_many([{"text": x, "importance": 0.5} for x in texts[s:s + batch]], vectors=vecs[s:s + batch])
    insert_s = time.perf_counter() - t0
    store._db.compact()  # what the app does in the background after bulk writes
    t0 = time.perf_counter()
    store._db.indices.clear()
    idx = store.index()
    load_s = time.perf_counter() - t0

    # Interleaved so both see the same machine load (the CPU here is shared).
    lat, lat_search, bf, bf_search = [], [], [], []
    matrix = np.ascontiguousarray(idx.vectors)
    for qa, qb in zip(_queries(args.queries, size), _queries(args.queries, size + 1)):
        t0 = time.perf_counter()
        res = store.recall(qa, k=3, touch=False)
        lat.append((time.perf_counter() - t0) * 1000)
        lat_search.append(res.timings_ms.get("search", 0.0) + res.timings_ms.get("merge", 0.0))
        t0 = time.perf_counter()
        qv = emb.embed_one(qb)
        t1 = time.perf_counter()
        sc = matrix @ qv
        top = np.argpartition(-sc, 3)[:3]
        top[np.argsort(-sc[top])]
        t2 = time.perf_counter()
        bf.append((t2 - t0) * 1000)
        bf_search.append((t2 - t1) * 1000)
    lance = []
    table = store._db.tables["memories"]
    for q in _queries(args.lance_queries, size + 2):
        t0 = time.perf_counter()
        qv = emb.embed_one(q)
        table.search(qv).metric("cosine").where("profile = 'bench'", prefilter=True).limit(3) \
            .select(["id", "text", "_distance"]).to_arrow()
        lance.append((time.perf_counter() - t0) * 1000)
    emit({"bench": "recall", "size": size, "other_profiles": args.others,
          "insert_per_s": round(size / insert_s), "index_load_s": round(load_s, 2),
          "recall_p50_ms": _pct(lat, 50), "recall_p95_ms": _pct(lat, 95),
          "numpy_bf_p50_ms": _pct(bf, 50), "numpy_bf_p95_ms": _pct(bf, 95),
          "ratio_p50": round(_pct(lat, 50) / max(_pct(bf, 50), 1e-6), 2),
          "search_merge_p50_ms": _pct(lat_search, 50), "numpy_matvec_p50_ms": _pct(bf_search, 50),
          "lancedb_flat_p50_ms": _pct(lance, 50)})
    if size >= 100_000 or size == max(int(s) for s in args.sizes.split(",")):
        victim = idx.rows[size // 2].id
        t0 = time.perf_counter()
        store.delete(victim)
        del_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        n = store.clear()
        clear_s = time.perf_counter() - t0
        emit({"bench": "hard_delete", "size": size, "delete_one_s": round(del_s, 2),
              "clear_profile_s": round(clear_s, 2), "cleared": n})
    store.close()


def _bench_real_insert(app, root: Path, emit) -> None:
    """Batched insert of 2000 real sentences (an import), MiniLM embedding included."""
    from tutor_app.memory.storage.store import open_store

    store = open_store(root / "real", app.embedder, "bench")
    texts = [f"I told you about {a} and {b} on day {i}" for i, (a, b) in
             enumerate(zip(_WORDS * 50, reversed(_WORDS * 50)))][:2000]
    app.embedder.embed([f"warm up {i}" for i in range(300)])  # loads the bulk path's second session too
    t0 = time.perf_counter()
    store.add_many([{"text": t} for t in texts])
    dt = time.perf_counter() - t0
    emit({"bench": "insert_with_embedding", "memories": len(texts), "per_s": round(len(texts) / dt)})
    store.close()


def run(args: argparse.Namespace, app) -> int:
    try:
        import torch

        torch_threads = torch.get_num_threads()
    except ImportError:  # the installed app has no torch: the embedder runs on onnxruntime
        torch_threads = None

    def emit(obj):
        if args.json:
            print_json(obj)
        else:
            print("  ".join(f"{k}={v}" for k, v in obj.items()), flush=True)

    emit({"bench": "machine", "torch_threads": torch_threads, "embedder": app.embedder.name,
          "embedder_runtime": getattr(app.embedder, "runtime", "?")})
    app.embedder.warm_up()
    with tempfile.TemporaryDirectory(prefix="tutor-bench-", dir=_tmp_root(app)) as tmp:
        root = Path(tmp)
        _bench_real_insert(app, root, emit)
        for size in [int(s) for s in args.sizes.split(",") if s.strip()]:
            _bench_size(app, root, size, args, emit)
    if args.calibrate:
        from tutor_app.bench.retrieval import calibrate

        emit({"bench": "calibration", **calibrate(app.embedder)})
    if not args.skip_retrieval:
        from tutor_app.bench.retrieval import evaluate

        for split in ("calibration", "eval", "heldout"):
            sc = evaluate(app.embedder, split)
            emit({"bench": "retrieval", "split": split, **sc.row()})
            if not args.json:
                for m in sc.misses:
                    print(f"    miss: {m}")
    return 0


def _tmp_root(app) -> str | None:
    try:
        app.paths.cache_dir.mkdir(parents=True, exist_ok=True)
        return str(app.paths.cache_dir)
    except OSError:
        return None


def main() -> int:  # `python -m tutor_app.bench.memory` until `tutor-app bench memory` is wired
    from tutor_app.app import App

    p = argparse.ArgumentParser(prog="tutor-app bench memory")
    p.add_argument("--data-dir", default=None)
    p.add_argument("--profile", default=None)
    add_arguments(p)
    args = p.parse_args()
    app = App.from_args(args)
    try:
        return run(args, app)
    finally:
        app.close()


if __name__ == "__main__":
    raise SystemExit(main())

