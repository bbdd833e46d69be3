"""Recall for a turn (seed 001): semantic, slot/fact and emotion recall, merged,
de-duplicated and ranked; top 3 by default, each hit with why it was recalled.

Relevance is hybrid: the MiniLM cosine plus a lexical term (the share of the
question's rare words the memory contains) plus a bonus for memories from the time the
question points at. Thresholds were calibrated on data for MiniLM, see CALIBRATION.
"""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tutor_app.core.types import top_emotion
from tutor_app.memory.profile.fields import SINGLE_CATEGORIES
from tutor_app.memory.retrieval import lexical, slots, timeref
from tutor_app.memory.retrieval.rewrite import rewrite
from tutor_app.memory.storage.models import Memory, MemoryHit
from tutor_app.memory.storage.schema import load_meta, utcnow

if TYPE_CHECKING:
    import numpy as np

    from tutor_app.core.protocols import Embedder
    from tutor_app.core.types import EmotionScore
    from tutor_app.memory.storage.index import ProfileIndex

# CALIBRATION (all-MiniLM-L6-v2): `tutor-app bench memory --calibrate` grid-searches
# DENSE_THRESHOLD, COS_MIN, Z_MIN and MARGIN_MIN on the tuning splits ("calibration" +
# "eval", 284 questions) of tutor_app/bench/data/retrieval_eval.json; "heldout" is never
# tuned on (see memory/README.md). LIRA's Weaviate certainty 0.7 is cosine 0.4 for its
# model; on MiniLM paraphrased answers score 0.15-0.65 and non-answers up to 0.78 (near-
# topic questions), so no single cosine cut works: hence hybrid + an outlier test.
DENSE_THRESHOLD = 0.45   # relevance (cosine + lexical) alone is enough above this
COS_MIN = 0.15           # below this cosine a memory is never "about" the question
Z_MIN = 3.0              # ...between the two: it must stand out from this profile's other
MARGIN_MIN = 0.10        # memories (z-score, and margin over the 6th best) to count
MIN_ROWS_FOR_Z = 20      # too few memories for a distribution: absolute threshold only
LOW_THRESHOLD = 0.20     # slot answers need at least this cosine (or the slot's category)
LEXICAL_MIN = 0.50       # share of the question's idf mass that marks a lexical hit
LEXICAL_WEIGHT = 0.35    # relevance = cosine + weight * lexical coverage (+ time bonus)
TIME_BONUS = 0.10        # a memory from the time the question points at
SLOT_BONUS = 0.25        # a slot question ranks its slot's memories first
ABSENT_FOCUS_COS = 0.5   # "my dog" and no memory mentions a dog: only near-paraphrases count
STRONG_EMOTION = 0.6     # seed 001 (GoEmotions 0.5, raised for precision); the gate uses it too
EMOTION_BONUS = 0.05
DUPLICATE_COSINE = 0.92  # two hits this close say the same thing: keep the newer
CANDIDATES = 48


@dataclass
class RecallResult:
    hits: list[MemoryHit]
    query_vector: Any = None  # reused by selective history and follow-up detection
    timings_ms: dict[str, float] = field(default_factory=dict)

    @property
    def ids(self) -> list[str]:
        return [h.id for h in self.hits]


@dataclass
class _Scored:
    row: int
    score: float
    cosine: float
    reason: str


@dataclass
class _Relevance:
    """Per index row: the cosine, the relevance (cosine + lexical + time) and the lexical coverage."""

    cos: "np.ndarray"
    rel: "np.ndarray"
    cov: "np.ndarray | None"


def _relevance(idx: "ProfileIndex", query: str, qvec: "np.ndarray", now: datetime) -> _Relevance:
    import numpy as np

    cos = idx.dense(qvec)
    rel = cos.copy()
    cov = lexical.coverage(idx.lexical, lexical.query_groups(query)) if len(idx) else None
    if cov is not None:
        rel += LEXICAL_WEIGHT * cov
    win = timeref.window(query, now)
    if win is not None and len(idx):
        rel += TIME_BONUS * ((idx.created >= win[0]) & (idx.created < win[1])).astype(np.float32)
    if len(idx):
        rel[~idx.current] = -np.inf  # superseded values are history, not answers
    return _Relevance(cos, rel, cov)


def _semantic(idx: "ProfileIndex", r: _Relevance, limit: int, reason: str = "semantic",
              gate: bool = True) -> list[_Scored]:
    """Candidates that pass the calibrated acceptance rule: relevance over the absolute
    threshold, or a cosine over COS_MIN that stands out from the profile's other
    memories for this question (an outlier, not just the best of a weak lot)."""
    import numpy as np

    cos, rel, cov = r.cos, r.rel, r.cov
    n = len(idx)
    if n == 0:
        return []
    k = min(CANDIDATES, n)
    top = np.argpartition(-rel, k - 1)[:k] if n > k else np.arange(n)
    top = top[np.argsort(-rel[top])]
    finite = rel[np.isfinite(rel)]
    use_z = len(finite) >= MIN_ROWS_FOR_Z
    mu = sd = sixth = 0.0
    if use_z:
        mu, sd = float(finite.mean()), float(finite.std()) or 1.0
        sixth = float(rel[top[5]]) if len(top) > 5 and np.isfinite(rel[top[5]]) else mu
    out = []
    for row in top:
        i = int(row)
        score = float(rel[i])
        if not np.isfinite(score):
            continue
        c = float(cos[i])
        ok = (score >= DENSE_THRESHOLD and c >= LOW_THRESHOLD) or not gate
        if not ok and use_z and c >= COS_MIN:
            ok = (score - mu) / sd >= Z_MIN and score - sixth >= MARGIN_MIN
        if ok:
            v = float(cov[i]) if cov is not None else 0.0
            out.append(_Scored(i, score, c, "lexical" if v >= LEXICAL_MIN and c < DENSE_THRESHOLD else reason))
        if len(out) >= limit:
            break
    return out


def search(idx: "ProfileIndex", embedder: "Embedder", profile: str, query: str, k: int = 5,
           now: datetime | None = None) -> list[MemoryHit]:
    """Hybrid search only (no slots/emotion); what `memory search` shows."""
    if not query.strip():
        return []
    qvec = embedder.embed_one(query)
    with idx.lock:
        found = _rank(idx, _semantic(idx, _relevance(idx, query, qvec, now or utcnow()), limit=max(k * 3, k)))[:k]
        return _hits(profile, idx, found)


def recall(idx: "ProfileIndex", embedder: "Embedder", profile: str, query: str,
           emotions: "Sequence[EmotionScore] | None" = None, k: int = 3, now: datetime | None = None,
           context: str = "", query_vector: "np.ndarray | None" = None, gate: bool = True) -> RecallResult:
    """Memories for this turn from the profile's index. `context` (e.g. the previous
    learner question) is used to rewrite short follow-ups ("what about her?") into a
    fuller query. `gate=False` skips the acceptance threshold (ranking only; for
    evaluation). The caller records the access times of the hits."""
    t0 = time.perf_counter()
    timings: dict[str, float] = {}
    if not query.strip():
        return RecallResult([], None, timings)
    now = now or utcnow()
    rewritten = rewrite(query, context)
    qvec = query_vector if query_vector is not None and rewritten == query else embedder.embed_one(rewritten)
    rest = slots.remember_ask(query)  # "do you remember X?" -> also search for X alone
    rest_vec = embedder.embed_one(rest) if rest and rest != query else None
    timings["embed"] = (time.perf_counter() - t0) * 1000
    with idx.lock:  # embedding is done: the lock covers only the ms of numpy work
        t1 = time.perf_counter()
        cands = _candidates(idx, query, rewritten, qvec, rest, rest_vec, emotions, k, now, gate)
        timings["search"] = (time.perf_counter() - t1) * 1000
        t2 = time.perf_counter()
        hits = _hits(profile, idx, _rank(idx, cands)[:k])
    timings["merge"] = (time.perf_counter() - t2) * 1000
    timings["total"] = (time.perf_counter() - t0) * 1000
    return RecallResult(hits, qvec, timings)


def _candidates(idx: "ProfileIndex", query: str, rewritten: str, qvec: "np.ndarray", rest: str,
                rest_vec: "np.ndarray | None", emotions: "Sequence[EmotionScore] | None", k: int,
                now: datetime, gate: bool) -> list[_Scored]:
    """Every reason a memory may answer: semantic, named people, fact slots, "do you
    remember", shared strong emotion."""
    import numpy as np

    relevance = _relevance(idx, rewritten, qvec, now)
    cos, rel = relevance.cos, relevance.rel
    asked = slots.query_slots_nouns(query)
    nouns = [n.lower() for _, n in asked if n]
    # "my dog" when no memory mentions a dog: the answer is not in memory, so only a
    # very close paraphrase may still count (seed 001: say "I don't know", don't guess).
    absent = bool(nouns) and not any(idx.lexical.postings(alt) is not None
                                     for n in nouns for g in lexical.query_groups(n) for alt in g)
    cands: list[_Scored] = _semantic(idx, relevance, limit=CANDIDATES, gate=gate)
    if absent and gate:
        cands = [c for c in cands if c.cosine >= ABSENT_FOCUS_COS]
    # "my sister" -> the sister's name from an earlier memory ("my sister Jiwon"), so
    # memories that only use the name ("Jiwon is moving to Seoul") are found too.
    for name in _names_for(idx, nouns):
        arr = idx.lexical.postings(lexical.stem(name.lower()))
        for i in (arr[0] if arr is not None else []):
            i = int(i)
            if idx.current[i]:
                cands.append(_Scored(i, float(rel[i]) + SLOT_BONUS / 2, float(cos[i]), "slot:people"))
    # Slot / fact recall: the question names a kind of fact.
    for slot, noun in asked:
        mask = (idx.tags & slot.bit) != 0
        if noun and len(idx):  # "my sister": a memory about a brother is not an answer
            has = np.zeros(len(idx), dtype=bool)
            arr = idx.lexical.postings(lexical.stem(noun.lower()))
            if arr is not None:
                has[arr[0]] = True
            mask &= has
        rows: Any = np.nonzero(mask & idx.current)[0] if len(idx) else []  # an array or []
        accepted = {c.row for c in cands}
        for i in rows[np.argsort(-rel[rows])][:k] if len(rows) else []:
            i = int(i)
            if slot.defines:  # "what's my name?": a name memory is the answer
                ok = cos[i] >= LOW_THRESHOLD or idx.rows[i].category in slot.categories
            else:  # "my favourite team?": a latte preference is not; it must be on topic too
                ok = i in accepted
            if ok:
                cands.append(_Scored(i, float(rel[i]) + SLOT_BONUS, float(cos[i]), f"slot:{slot.name}"))
    # "Do you remember ...?": a fact lookup, lower bar but still on topic.
    if rest_vec is not None:
        cands += _semantic(idx, _relevance(idx, rest, rest_vec, now), limit=k, reason="remember")
    # Emotion recall: a strong feeling brings back memories with the same feeling.
    top = top_emotion(emotions, neutral_ok=False)
    if top is not None and top.score >= STRONG_EMOTION and len(idx):
        rows = [i for i in idx.rows_with_emotion(top.label) if idx.current[i]]
        rows.sort(key=lambda i: (float(rel[i]), float(idx.created[i])), reverse=True)
        for i in rows[:2]:
            cands.append(_Scored(i, float(rel[i]) + EMOTION_BONUS, float(cos[i]), f"emotion:{top.label}"))
    return cands


_NAMED = r"(?:my\s+{n}\s+(?:is\s+(?:called\s+|named\s+)?)?([A-Z][\w-]+)|([A-Z][\w-]+),?\s+my\s+{n}\b|{n}\s+(?:called|named)\s+([A-Z][\w-]+))"


def _names_for(idx: "ProfileIndex", nouns: list[str]) -> list[str]:
    """Names the learner gave for "my sister", "my cat"... in memories that mention them."""
    import re

    names: list[str] = []
    for noun in nouns:
        arr = idx.lexical.postings(lexical.stem(noun))
        if arr is None:
            continue
        pat = re.compile(_NAMED.format(n=re.escape(noun)))
        for i in arr[0][:50]:
            for m in pat.finditer(idx.rows[int(i)].text):
                name = next(g for g in m.groups() if g)
                if name.lower() not in lexical.STOPWORDS and name not in names:
                    names.append(name)
    return names[:3]


def _rank(idx: "ProfileIndex", cands: list[_Scored]) -> list[_Scored]:
    """Best reason per memory; relevance first, then newer, then more important;
    near-duplicates and older values of single-value facts dropped (newer wins)."""
    best: dict[int, _Scored] = {}
    for c in cands:
        old = best.get(c.row)
        if old is None or c.score > old.score:
            best[c.row] = c
    order = sorted(best.values(), key=lambda s: (round(s.score, 3), idx.created[s.row], idx.importance[s.row]),
                   reverse=True)
    kept: list[_Scored] = []
    vecs = idx.vectors
    for s in order:
        row = idx.rows[s.row]
        dup = False
        for j, other in enumerate(kept):
            orow = idx.rows[other.row]
            same_text = " ".join(row.text.lower().split()) == " ".join(orow.text.lower().split())
            near = idx.has_vec[s.row] and idx.has_vec[other.row] and float(vecs[s.row] @ vecs[other.row]) >= DUPLICATE_COSINE
            same_slot = row.category in SINGLE_CATEGORIES and row.category == orow.category
            if same_text or near or same_slot:
                dup = True
                if idx.created[s.row] > idx.created[other.row]:  # newer wins, keeps the better rank
                    kept[j] = _Scored(s.row, other.score, s.cosine, other.reason)
                break
        if not dup:
            kept.append(s)
    return kept


def _hits(profile: str, idx: "ProfileIndex", scored: list[_Scored]) -> list[MemoryHit]:
    """Built from the index (no table read on the turn's path)."""
    from datetime import timezone

    out = []
    for s in scored:
        r = idx.rows[s.row]
        mem = Memory(id=r.id, profile=profile, text=r.text, memory_type=r.memory_type, category=r.category,
                     emotion_label=r.emotion_label, emotion_score=r.emotion_score, importance=r.importance,
                     source=r.source, session_id=r.session_id, meta=load_meta(r.meta),
                     created_at=datetime.fromtimestamp(r.created, timezone.utc),
                     superseded_by="x" if r.superseded else "")
        out.append(MemoryHit(mem, s.score, s.reason, s.cosine))
    return out
