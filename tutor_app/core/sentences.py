"""Streaming sentence splitter: feed text deltas, get whole sentences as soon as they end.

Used between the LLM stream and TTS so the first sentence can be spoken while the rest
is still being generated.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator

# A sentence ends at . ! ? (or an ellipsis / closing quote after them) followed by space,
# or at a newline. Common abbreviations and decimals must not end a sentence.
_END = re.compile(r"([.!?…]+[\"')\]]*)(\s+)|(\n+)")
_END_NOW = re.compile(r"([.!?…]+)[\"')\]]*$")  # a sentence's end at the very end of the text
_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "a.m", "p.m",
    "u.s", "u.k", "no",
}
MIN_CHARS = 12  # avoid speaking "Oh." alone when more is coming quickly
CLAUSE_MARKS = (",", ";", ":", "—")
# A clause break: one of those marks right after a letter, before a space or at the end of
# the text so far (not "1,000", not "3:30").
_CLAUSE = re.compile(rf"(?<=[^\W\d_])[{''.join(CLAUSE_MARKS)}](?=\s|$)")


def is_clause(chunk: str) -> bool:
    """A chunk that ends at a clause break, not a sentence (`first_clause_words`)."""
    return chunk.rstrip().endswith(CLAUSE_MARKS)


class SentenceSplitter:
    def __init__(self, min_chars: int = MIN_CHARS, first_min_chars: int | None = None,
                 first_clause_words: int = 0, clause_ok: Callable[[str], bool] | None = None) -> None:
        """`first_min_chars`: the first sentence's own minimum (a reply's "Okay." spoken
        at once: the first sound comes sooner, and the rest is made while it plays).
        `first_clause_words`: the first sentence may go out at its first clause break
        after this many words, when `clause_ok` (if given) takes that clause - a slow
        model's long first sentence is heard while the model writes the rest of it; its
        rest is then a chunk of its own. Offered once (0: whole sentences only)."""
        self._buffer = ""
        self._later_min = min_chars
        self._min_chars = min_chars if first_min_chars is None else first_min_chars
        self._clause_words = first_clause_words
        self._clause_ok = clause_ok

    def feed(self, delta: str) -> list[str]:
        self._buffer += delta
        out: list[str] = []
        start = 0
        for match in _END.finditer(self._buffer):
            end = match.end()
            candidate = self._buffer[start:end].strip()
            if match.group(1) and _ends_with_abbreviation(self._buffer[start:match.start(1) + 1]):
                continue
            if len(candidate) < self._min_chars and match.group(1):
                continue
            if candidate:
                out.append(candidate)
                self._min_chars = self._later_min
                self._clause_words = 0  # a sentence is out: the first is done
            start = end
        self._buffer = self._buffer[start:]
        if self._ends_here(self._buffer):
            out.append(self._buffer.strip())
            self._buffer = ""
            self._min_chars = self._later_min
            self._clause_words = 0
        elif self._clause_words:
            clause = self._first_clause()
            if clause is not None:
                out.append(clause)
        return out

    def _first_clause(self) -> str | None:
        """The first sentence up to a clause break `first_clause_words` words in, once taken
        (what is left stays in the buffer), or None (then, if it was offered, never again)."""
        for match in _CLAUSE.finditer(self._buffer):
            clause = self._buffer[:match.end()].strip()
            if len(clause.split()) < self._clause_words:
                continue
            self._clause_words = 0  # offered once: a declined clause stays in its sentence
            if self._clause_ok is not None and not self._clause_ok(clause):
                return None
            self._buffer = self._buffer[match.end():]
            self._min_chars = self._later_min
            return clause
        return None

    def _ends_here(self, text: str) -> bool:
        """`text` (what is left) ends a sentence already, before the space that would
        confirm it: a delta (a token of a local model, a chunk of Claude's) often ends on
        the full stop, and the next one comes 25-50 ms later. Not after a digit ("3." may
        be "3.50"), an abbreviation or a single letter, nor when too short."""
        match = _END_NOW.search(text)
        if match is None or len(text.strip()) < self._min_chars:
            return False
        before = text[:match.start()]
        if not before or not before[-1].isalpha():
            return False  # a decimal, a number, or punctuation alone
        return not (match.group(1).startswith(".") and _ends_with_abbreviation(before + "."))

    def flush(self) -> list[str]:
        rest, self._buffer = self._buffer.strip(), ""
        return [rest] if rest else []


def _ends_with_abbreviation(text: str) -> bool:
    words = text.rstrip(".").split()
    if not words:
        return False
    last = words[-1].lower().strip("(\"'")
    return last in _ABBREVIATIONS or (len(last) == 1 and last.isalpha() and last != "i")


def split_stream(deltas: Iterable[str], min_chars: int = MIN_CHARS) -> Iterator[str]:
    splitter = SentenceSplitter(min_chars)
    for delta in deltas:
        yield from splitter.feed(delta)
    yield from splitter.flush()
