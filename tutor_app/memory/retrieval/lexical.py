"""Lexical matching (BM25) over one profile's memories.

Dense MiniLM vectors miss exact names, numbers and rare words ("Jiwon", "Busan",
"March 3rd"); BM25 catches them. Tokens are lower-cased word pieces with a light,
symmetric suffix strip (queries and memories go through the same function, so it only
has to be consistent, not linguistically right).
"""
from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

    Postings = tuple[np.ndarray, np.ndarray]  # (rows, term frequencies)

_WORD = re.compile(r"[\w']+", re.UNICODE)
STOPWORDS = frozenset("""
a an the and or but if of to in on at by for with from as is am are was were be been being do does did
doing have has had having i me my mine myself you your yours yourself we us our he him his she her it its
they them their this that these those what which who whom whose when where why how there here than then
so too very can could would should will shall may might must just also not no nor only own same such
about into over under again further once all any both each few more most other some up down out off
tell told know remember recall say said ask asked please hey hi hello yeah yes ok okay oh um uh like
let lets let's me? do you don't didn't dont im i'm i've ive it's its that's what's whats again anything
something thing things really actually maybe still ever
recently lately yesterday today tonight ago week weekend month last night morning evening time
""".split())  # time words are handled by timeref.py, not by word matching
# Korean particles are left alone: whole-word matches still work for names and nouns.


def stem(token: str) -> str:
    t = token
    if t.endswith("'s"):
        t = t[:-2]
    t = t.strip("'")
    if len(t) > 7 and t.endswith("ation"):
        t = t[:-5]  # "presentation" -> "present"
    elif len(t) > 5 and t.endswith("ing"):
        t = t[:-3]
    elif len(t) > 4 and t.endswith("ied"):
        t = t[:-3] + "y"
    elif len(t) > 4 and t.endswith("ed"):
        t = t[:-2]
    elif len(t) > 4 and t.endswith("ies"):
        t = t[:-3] + "y"
    elif len(t) > 3 and t.endswith("s") and not t.endswith("ss"):
        t = t[:-1]
    if len(t) > 3 and t[-1] == t[-2] and t[-1] not in "lsz" and t[-1].isalpha():
        t = t[:-1]  # "swimming" -> "swimm" -> "swim", "stopped" -> "stop"
    if len(t) > 4 and t.endswith("e"):
        t = t[:-1]  # "hike"/"hiking" -> "hik"
    return t


def tokens(text: str) -> list[str]:
    out = []
    for raw in _WORD.findall(text.lower()):
        if raw in STOPWORDS or len(raw) < 2:
            continue
        t = stem(raw)
        if t and t not in STOPWORDS:
            out.append(t)
    return out


# Query rewriting for a few everyday categories a learner talks about: a question
# names the category ("what sport", "my dog"), the memory names the instance
# ("swimming", "a shiba inu"). Applied to queries only; memories stay verbatim.
EXPANSIONS: dict[str, tuple[str, ...]] = {
    "sport": ("swimming", "tennis", "soccer", "football", "baseball", "basketball", "badminton", "golf", "yoga",
              "running", "hiking", "climbing", "cycling", "boxing", "skiing", "volleyball", "pilates", "gym"),
    "dog": ("puppy", "shiba", "poodle", "retriever", "terrier", "beagle", "corgi", "maltese", "jindo", "husky"),
    "cat": ("kitten", "kitty"),
    "pet": ("dog", "cat", "puppy", "kitten", "parrot", "hamster", "rabbit", "fish", "bird", "turtle"),
    "drink": ("coffee", "tea", "latte", "americano", "espresso", "juice", "beer", "wine", "soju", "water", "milk"),
    "coffee": ("latte", "americano", "espresso", "cappuccino", "mocha", "macchiato", "cafe"),
    "instrument": ("guitar", "piano", "violin", "drums", "cello", "flute", "ukulele", "bass", "saxophone"),
    "music": ("band", "song", "singer", "jazz", "rock", "pop", "blues", "classical", "hip-hop", "k-pop", "concert"),
    "language": ("english", "spanish", "japanese", "chinese", "french", "german", "korean", "python", "java", "go"),
    "test": ("exam", "ielts", "toefl", "toeic", "oet", "interview"),
    "exam": ("test", "ielts", "toefl", "toeic", "oet"),
    "food": ("eat", "spicy", "allergic", "vegetarian", "vegan", "kimchi", "pizza", "sushi"),
}


IDF_FULL = 6.0  # query idf mass that earns the full lexical weight


def query_groups(text: str) -> list[list[str]]:
    """Query tokens, each with its expansions (stemmed like memory tokens)."""
    groups = []
    for t in tokens(text):
        alts = [t]
        for base, more in EXPANSIONS.items():
            if stem(base) == t:
                alts += [stem(m) for m in more if stem(m) not in alts]
        groups.append(alts)
    return groups


class Bm25:
    """Append-only inverted index; rebuilt from texts after deletions (cheap at app sizes)."""

    K1 = 1.2
    B = 0.75

    def __init__(self) -> None:
        self._post: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self._arrays: dict[str, Postings] = {}
        self._lengths: list[int] = []
        self._total = 0

    @property
    def size(self) -> int:
        return len(self._lengths)

    def add(self, text: str) -> None:
        row = len(self._lengths)
        toks = tokens(text)
        counts: dict[str, int] = {}
        for t in toks:
            counts[t] = counts.get(t, 0) + 1
        for t, c in counts.items():
            self._post[t].append((row, c))
            self._arrays.pop(t, None)
        self._lengths.append(len(toks))
        self._total += len(toks)

    def postings(self, term: str) -> Postings | None:
        """(rows, term frequencies) of a term as arrays, or None when no row has it."""
        import numpy as np

        arr = self._arrays.get(term)
        if arr is None:
            post = self._post.get(term)
            if not post:
                return None
            rows = np.fromiter((p[0] for p in post), dtype=np.int64, count=len(post))
            tfs = np.fromiter((p[1] for p in post), dtype=np.float32, count=len(post))
            arr = self._arrays[term] = (rows, tfs)
        return arr

    def scores(self, query_terms: list[str]) -> "np.ndarray | None":
        """BM25 per row, or None when no query term occurs at all."""
        import numpy as np

        n = len(self._lengths)
        if n == 0 or not query_terms:
            return None
        avg = max(self._total / n, 1.0)
        lengths = None
        out = None
        for term in dict.fromkeys(query_terms):
            arr = self.postings(term)
            if arr is None:
                continue
            rows, tfs = arr
            if lengths is None or out is None:  # both set together; `or` for the type checker
                lengths = np.asarray(self._lengths, dtype=np.float32)
                out = np.zeros(n, dtype=np.float32)
            df = len(rows)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            dl = lengths[rows]
            out[rows] += idf * tfs * (self.K1 + 1) / (tfs + self.K1 * (1 - self.B + self.B * dl / avg))
        return out

    def idf(self, term: str) -> float:
        n = len(self._lengths)
        df = len(self._post.get(term, ()))
        return math.log(1.0 + (n - df + 0.5) / (df + 0.5)) if n else 0.0


def coverage(index: Bm25, query_terms: Sequence[str | Sequence[str]]) -> "np.ndarray | None":
    """Per row, the share of the query's idf mass that the row contains (0..1).
    A term is a token or a group of alternatives (query_groups). Terms unknown to the
    index count against every row (the thing asked about is not in memory), which is
    what keeps unseen topics from matching weakly."""
    import numpy as np

    n = index.size
    groups = [[t] if isinstance(t, str) else list(t) for t in query_terms]
    seen, uniq = set(), []
    for g in groups:
        if g[0] not in seen:
            seen.add(g[0])
            uniq.append(g)
    if n == 0 or not uniq:
        return None
    total = 0.0
    out = None
    for group in uniq:
        w = index.idf(group[0])
        total += w
        hit = None
        for term in group:
            arr = index.postings(term)
            if arr is not None:
                hit = arr[0] if hit is None else np.union1d(hit, arr[0])
        if hit is None:
            continue
        if out is None:
            out = np.zeros(n, dtype=np.float32)
        out[hit] += w
    if out is None or total <= 0:
        return None
    # A one-word generic question ("what do I do at work?") must not let every memory
    # containing "work" outrank the real answer: full weight needs ~2 rare terms.
    return out / total * min(1.0, total / IDF_FULL)
