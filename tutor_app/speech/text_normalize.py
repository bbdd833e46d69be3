"""Text as a voice should read it: markup stripped, emoji dropped, numbers in words.

Piper (through espeak-ng) reads "3:30 pm", "$5", "25%", "1st" or "2024" badly or
oddly, says "asterisk" for markdown and tries to pronounce emoji; tutor replies from an
LLM contain all of these. Pure and deterministic: the same text always gives the same
result.
"""
from __future__ import annotations

import html
import re
import unicodedata

_ONES = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen").split()
_TENS = "_ _ twenty thirty forty fifty sixty seventy eighty ninety".split()
_SCALES = ((10**12, "trillion"), (10**9, "billion"), (10**6, "million"), (1000, "thousand"))
_ORDINAL_WORDS = {"one": "first", "two": "second", "three": "third", "five": "fifth",
                  "eight": "eighth", "nine": "ninth", "twelve": "twelfth"}
_CURRENCIES = {"$": ("dollar", "dollars", "cent", "cents"), "€": ("euro", "euros", "cent", "cents"),
               "£": ("pound", "pounds", "penny", "pence"), "¥": ("yen", "yen", "", ""),
               "₩": ("won", "won", "", "")}


def number_to_words(n: int) -> str:
    """42 -> 'forty two' (spaces, no hyphens: simplest for TTS and WER alike)."""
    if n < 0:
        return "minus " + number_to_words(-n)
    if n < 20:
        return _ONES[n]
    if n < 100:
        tens, ones = divmod(n, 10)
        return _TENS[tens] + ("" if ones == 0 else " " + _ONES[ones])
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        return _ONES[hundreds] + " hundred" + ("" if rest == 0 else " " + number_to_words(rest))
    for value, name in _SCALES:
        if n >= value:
            high, rest = divmod(n, value)
            return number_to_words(high) + " " + name + ("" if rest == 0 else " " + number_to_words(rest))
    raise AssertionError("unreachable")


def ordinal_words(n: int) -> str:
    """21 -> 'twenty first'."""
    words = number_to_words(n).split()
    last = words[-1]
    if last in _ORDINAL_WORDS:
        words[-1] = _ORDINAL_WORDS[last]
    elif last.endswith("y"):
        words[-1] = last[:-1] + "ieth"
    else:
        words[-1] = last + "th"
    return " ".join(words)


def year_words(n: int) -> str:
    """1999 -> 'nineteen ninety nine', 2005 -> 'two thousand five', 2024 -> 'twenty twenty four'."""
    high, low = divmod(n, 100)
    if 2000 <= n <= 2009:
        return number_to_words(n)
    if low == 0:
        return number_to_words(high) + " hundred"
    if low < 10:
        return number_to_words(high) + " oh " + number_to_words(low)
    return number_to_words(high) + " " + number_to_words(low)


def decimal_words(text: str) -> str:
    """'3.14' -> 'three point one four'; '1,000' -> 'one thousand'."""
    text = text.replace(",", "")
    whole, _, frac = text.partition(".")
    out = number_to_words(int(whole or "0"))
    if frac:
        out += " point " + " ".join(_ONES[int(d)] for d in frac)
    return out


# -- markup and symbols ------------------------------------------------------------------
_CODE_FENCE = re.compile(r"```[^\n]*\n?(.*?)```", re.S)
_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
_URL = re.compile(r"\b(?:https?://|www\.)\S+", re.I)
_TAG = re.compile(r"</?[A-Za-z][^<>]*>")
_EMPHASIS = re.compile(r"(\*\*|__|\*|_|~~)(?=\S)(.+?)(?<=\S)\1")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s*", re.M)
_BULLET = re.compile(r"^\s*(?:[-*+•]|>+)\s+", re.M)


def strip_markup(text: str) -> str:
    text = _CODE_FENCE.sub(lambda m: m.group(1), text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _URL.sub("", text)
    text = _TAG.sub("", text)
    text = html.unescape(text)
    for _ in range(2):  # nested **_x_**
        text = _EMPHASIS.sub(lambda m: m.group(2), text)
    text = text.replace("`", "")
    text = _HEADING.sub("", text)
    text = _BULLET.sub("", text)
    text = re.sub(r"^\s*[-*_]{3,}\s*$", "", text, flags=re.M)  # horizontal rules
    return re.sub(r"[*#~^|_]+", " ", text)  # stray markup characters (tables, lone stars)


def strip_emoji(text: str) -> str:
    out = []
    for ch in text:
        cp = ord(ch)
        if ch in "\u200d\ufe0f\ufe0e\u20e3" or 0x1F3FB <= cp <= 0x1F3FF:  # joiners, selectors, skin tones
            continue
        if unicodedata.category(ch) == "So" or 0x1F000 <= cp <= 0x1FAFF or 0x2600 <= cp <= 0x27BF:
            out.append(" ")
            continue
        out.append(ch)
    return "".join(out)


# -- numbers -----------------------------------------------------------------------------
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
# "pm", "p m" or "p.m." ("p.m." keeps its final dot: it may end the sentence).
_AMPM = r"(?:([AaPp])\.\s?[Mm](\.)|([AaPp])\s?[Mm]\b)"
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})(?:\s*" + _AMPM + ")?")
_HOUR_AMPM = re.compile(r"\b(\d{1,2})\s*" + _AMPM)
_MONEY = re.compile(r"([$€£¥₩])\s?(" + _NUM + r")(?:\s?(k|m|bn|million|billion|thousand)\b)?", re.I)
_PERCENT = re.compile(r"(" + _NUM + r")\s?%")
_ORDINAL = re.compile(r"\b(\d+)(st|nd|rd|th)\b", re.I)
_YEAR = re.compile(r"\b(1[1-9]\d\d|20\d\d)(s?)\b(?![.,]\d)")
_NUMBER = re.compile(r"(?<![\w.])-?(?:" + _NUM + r")\b")
_SCALE_WORDS = {"k": "thousand", "m": "million", "bn": "billion"}


def _ampm(letter: str | None, dot: str | None) -> str:
    if not letter:
        return ""
    return (" a m" if letter.lower() == "a" else " p m") + (dot or "")


def _time(m: re.Match[str]) -> str:
    hour, minute = int(m.group(1)), int(m.group(2))
    ampm = _ampm(m.group(3) or m.group(5), m.group(4))
    if hour > 24 or minute > 59:
        return m.group(0)
    words = number_to_words(hour)
    if minute == 0:
        words += "" if ampm else " o'clock"
    elif minute < 10:
        words += " oh " + number_to_words(minute)
    else:
        words += " " + number_to_words(minute)
    return words + ampm


def _money(m: re.Match[str]) -> str:
    one, many, sub_one, sub_many = _CURRENCIES[m.group(1)]
    amount, scale = m.group(2).replace(",", ""), m.group(3)
    if scale:
        scale_word = _SCALE_WORDS.get(scale.lower(), scale.lower())
        return f"{decimal_words(amount)} {scale_word} {many}"
    whole, _, cents = amount.partition(".")
    value = int(whole)
    words = f"{number_to_words(value)} {one if value == 1 else many}"
    if cents and sub_one and int(cents[:2].ljust(2, "0")):
        c = int(cents[:2].ljust(2, "0"))
        words += f" and {number_to_words(c)} {sub_one if c == 1 else sub_many}"
    return words


def _year(m: re.Match[str]) -> str:
    words = year_words(int(m.group(1)))
    if m.group(2):  # 1990s -> nineteen nineties
        last = words.split()[-1]
        plural = last[:-1] + "ies" if last.endswith("y") else last + "s"
        words = " ".join(words.split()[:-1] + [plural])
    return words


def spell_numbers(text: str) -> str:
    text = _TIME.sub(_time, text)
    text = _HOUR_AMPM.sub(lambda m: number_to_words(int(m.group(1))) +
                          _ampm(m.group(2) or m.group(4), m.group(3)), text)
    text = _MONEY.sub(_money, text)
    text = _PERCENT.sub(lambda m: decimal_words(m.group(1)) + " percent", text)
    text = _ORDINAL.sub(lambda m: ordinal_words(int(m.group(1))), text)
    text = _YEAR.sub(_year, text)
    text = _NUMBER.sub(lambda m: ("minus " if m.group(0).startswith("-") else "") +
                       decimal_words(m.group(0).lstrip("-")), text)
    return text


def normalize_for_speech(text: str) -> str:
    """Everything above, then tidy whitespace. '' when nothing speakable is left."""
    text = unicodedata.normalize("NFC", text)
    text = strip_markup(text)
    text = strip_emoji(text)
    text = spell_numbers(text)
    text = text.replace("&", " and ")
    text = re.sub(r"[ \t]+", " ", text)
    text = re.sub(r" +([,.!?;:])", r"\1", text)
    text = re.sub(r"\s*\n\s*", "\n", text).strip()
    return text if any(ch.isalnum() for ch in text) else ""
