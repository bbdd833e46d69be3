"""Streaming sentence splitter: feed text deltas, get whole sentences as soon as they end.

Used between the LLM stream and TTS so the first sentence can be spoken while the rest
is still being generated.
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

# A sentence ends at . ! ? (or an ellipsis / closing quote after them) followed by space,
# or at a newline. Common abbreviations and decimals must not end a sentence.
_END = re.compile(r"([.!?…]+[\"')\]]*)(\s+)|(\n+)")
_END_NOW = re.compile(r"([.!?…]+)[\"')\]]*$")  # a sentence's end at the very end of the text
_ABBREVIATIONS = {
    "mr", "mrs", "ms", "dr", "prof", "sr", "jr", "st", "vs", "etc", "e.g", "i.e", "a.m", "p.m",
    "u.s", "u.k", "no",
}
MIN_CHARS = 12  # avoid speaking "Oh." alone when more is coming quickly


class SentenceSplitter:
    def __init__(self, min_chars: int = MIN_CHARS, first_min_chars: int | None = None) -> None:
        """`first_min_chars`: the first sentence's own minimum (a reply's "Okay." spoken
        at once: the first sound comes sooner, and the rest is made while it plays)."""
        self._buffer = ""
        self._later_min = min_chars
        self._min_chars = min_chars if first_min_chars is None else first_min_chars

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
            start = end
        self._buffer = self._buffer[start:]
        if self._ends_here(self._buffer):
            out.append(self._buffer.strip())
            self._buffer = ""
            self._min_chars = self._later_min
        return out

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
