"""Help for a Korean-speaking learner during a call: "출장은 영어로 뭐예요?", "다시 말해 주세요",
"천천히 말해 주세요", "이해가 안 돼요" (and the plain English forms of the last three).

With a model that reads Korean (Claude, a larger local model) this is one prompt rule,
`PROMPT_RULE`, in the stable part of the system prompt (tutor/prompts.py).

A small offline model (the compact prompt: tutor/engine.py `compact_prompt`) cannot read
Korean; `built_in_help` answers these requests before it is asked, from what the call
already holds:
- how do I say X: the phrase table (tutor/korean_phrases.py) gives the English, an
  example and an invitation to say it; a word not in it gets an honest "not in my
  offline list" and an invitation to describe it in English;
- slower / faster / normal speed (tutor/rate.py's detection; the live call changes the
  voice itself): said so, and the last line again (slower) or the last question;
- again: the tutor's last line again;
- I don't understand: the last question alone, when it is short, else an easier one;
- anything else mostly in Korean: an honest line that offline only these requests are
  understood in Korean.
The answers are English only: the tutor's voice is English (Piper cannot say Hangul).
The engine says them like the crisis line: never the model's words, and the learner's
Korean is not stored (no memory, no transcript line, nothing for the call-end review).
"""
from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from tutor_app.core.types import ChatMessage
from tutor_app.tutor.korean_phrases import Phrase, key, phrases

PROMPT_RULE = """10) Most learners are Korean speakers. When the learner asks in Korean how to say something in English (e.g. "출장은 영어로 뭐예요?", "이거 영어로 뭐라고 해요?"), give the English word or phrase, one short example sentence with it, and invite them to say it; if you cannot tell what "this" means, ask them to describe it. When they say in Korean that they did not understand, say it again in simpler English; when they ask you to repeat or to speak more slowly, do so. Answer in English (you may quote their Korean word once), then go on with the conversation in English."""

HOW_TO_SAY, AGAIN, NOT_UNDERSTOOD, KOREAN = "how-to-say", "again", "not-understood", "korean"
SLOWER, FASTER, NORMAL = "slower", "faster", "normal"  # tutor/rate.py's directions
_FILLER, _OTHER = "filler", "other"

HANGUL = re.compile(r"[\uac00-\ud7a3\u3131-\u318e]")
SHORT_QUESTION_WORDS = 12  # a longer last question is replaced by an easier one
EASY_QUESTIONS = {"daily": "What did you do today?", "travel": "Where do you want to travel?",
                  "business": "What do you do at work?", "interview": "Can you tell me about yourself?"}
OPENER = "How are you today?"


@dataclass(frozen=True)
class Help:
    kind: str
    sentences: tuple[str, ...]

    @property
    def reply(self) -> str:
        return " ".join(self.sentences)

    @property
    def backend(self) -> str:  # shown as the turn's backend (`chat --json`)
        return f"built-in:{self.kind}"


def built_in_help(text: str, transcript: Sequence[ChatMessage], topic: str,
                  small_model: Callable[[], bool]) -> Help | None:
    """The built-in answer to a help request, or None (the model answers). `small_model()`
    is asked only when `text` is a request: is the tutor model one that cannot read Korean?"""
    request = help_request(text)
    if request is None or not small_model():
        return None
    last = next((m.content for m in reversed(transcript) if m.role == "assistant" and m.content.strip()), "")
    return answer(request[0], request[1], last, topic)


def help_request(text: str) -> tuple[str, str] | None:
    """(kind, word asked about) of a turn that is a help request, else None. A turn of
    other English words besides a request is the model's to answer."""
    found: list[tuple[str, str]] = [_sentence_kind(s) for s in _sentences(text)]
    for kind, word in found:
        if kind == HOW_TO_SAY:
            return kind, word
    requests = [kind for kind, _ in found if kind not in (_FILLER, _OTHER)]
    if requests and all(kind != _OTHER for kind, _ in found):
        for kind in (SLOWER, FASTER, NORMAL, NOT_UNDERSTOOD, AGAIN):
            if kind in requests:
                return kind, ""
    hangul = len(HANGUL.findall(text))
    if hangul and hangul >= len(re.findall(r"[A-Za-z]", text)):
        return KOREAN, ""
    return None


def answer(kind: str, word: str, last_line: str, topic: str) -> Help:
    """The reply to one request, in English (the tutor's voice), from the call's last line."""
    question = _last_question(last_line)
    go_on = (question or EASY_QUESTIONS.get(topic, OPENER)) if last_line else OPENER
    if kind == HOW_TO_SAY:
        return Help(kind, _how_to_say(word))
    if kind == SLOWER:
        return Help(kind, ("Sure, I'll speak more slowly.", *(_split(last_line) or (OPENER,))))
    if kind == FASTER:
        return Help(kind, ("Sure, I'll speak a little faster.", go_on))
    if kind == NORMAL:
        return Help(kind, ("Okay, back to my normal speed.", go_on))
    if kind == AGAIN:
        if not last_line:
            return Help(kind, ("I haven't asked you anything yet.", OPENER))
        return Help(kind, ("Sure.", *_split(last_line)))
    if kind == NOT_UNDERSTOOD:
        if question and len(question.split()) <= SHORT_QUESTION_WORDS:
            return Help(kind, ("No problem, let me ask again.", question, "You can answer with just a few words."))
        return Help(kind, ("No problem, let's make it easier.", EASY_QUESTIONS.get(topic, OPENER),
                           "A few words are fine."))
    return Help(KOREAN, ("Offline, I only understand a few questions in Korean, like how to say a word in English.",
                         "Can you try it in English? A few words are fine."))


# -- how do I say X --------------------------------------------------------------------
_DEMONSTRATIVES = frozenset(key(w) for w in (
    "이거", "이것", "이건", "이게", "그거", "그것", "그건", "그게", "저거", "저것", "저건", "저게",
    "이 말", "이 단어", "이 표현", "그 말", "그 단어", "그 표현", "이런 거", "이런 것"))
# A particle or a "called ..." ending after the word asked about, longest first.
_PARTICLES = ("이라는 말은", "라는 말은", "이라는 단어는", "라는 단어는", "이라는 건", "라는 건", "이라는 거",
              "라는 거", "이라고", "라고", "이란", "란", "은요", "는요", "은", "는", "이", "가", "을", "를", "도", "요")
_LEAD = re.compile(r"^(?:(?:선생님|쌤|저기요?|근데|그런데|그럼|그러면|혹시|음+|어+|아+|참|그리고)[\s,.~]*)+")
_KO_ENGLISH = re.compile(r"영어\s*(?:단어|표현|말)?\s*로(?:는|도)?|영어론")
_KO_ASK = re.compile(r"^\s*(?:는\s*|은\s*)?(?:뭐|무엇|무어|뭘|뭔|머|어떻게|어케|뭐라|하면|말하면|\?|$)")
_KO_ASK_AFTER_WORD = re.compile(r"^(.+?)\s*(?:뭐|무엇|무어|뭘|뭔|어떻게|어케|뭐라)")
_EN_HOW = re.compile(r"(?:how\s+(?:do|can|would|should)\s+(?:you|i|we)\s+say|what(?:'s|\s+is|\s+are)"
                     r"|what\s+do\s+(?:you|we)\s+call)\s+(.+?)\s+in\s+english", re.IGNORECASE)
_EN_BARE = re.compile(r"^(.+?)\s+(?:is\s+what\s+)?in\s+english\s*\??$", re.IGNORECASE)
_QUOTES = "'\"‘’“”「」『』<>()[]"


def how_to_say_word(sentence: str) -> str | None:
    """The word of "X는 영어로 뭐예요?" / "How do you say X in English?" (X in Hangul), or None."""
    for pattern in (_EN_HOW, _EN_BARE):
        m = pattern.search(sentence)
        if m and HANGUL.search(m.group(1)):
            return _clean(m.group(1))
    m = _KO_ENGLISH.search(sentence)
    if m is None:
        return None
    before, after = _clean(sentence[:m.start()]), sentence[m.end():].strip()
    if before:
        return before if _KO_ASK.match(after) else None
    if _KO_ASK.match(after) and after:
        return "이거"  # "영어로 뭐라고 해요?": how do you say *it*
    asked = _KO_ASK_AFTER_WORD.match(after)  # "영어로 출장이 뭐예요?"
    return _clean(asked.group(1)) if asked else None


def lookup(word: str) -> Phrase | None:
    """The table's entry for `word`: the whole, or its last words, without a particle."""
    table = phrases()
    parts = word.split()
    for n in range(len(parts), 0, -1):
        for candidate in _forms(" ".join(parts[-n:])):
            if candidate in table:
                return table[candidate]
    return None


def _forms(word: str) -> list[str]:
    plain = key(word)
    forms = [plain]
    for particle in _PARTICLES:
        p = key(particle)
        if plain.endswith(p) and len(plain) > len(p):
            forms.append(plain[: -len(p)])
    return forms


def _how_to_say(word: str) -> tuple[str, ...]:
    if any(form in _DEMONSTRATIVES for form in _forms(word)):
        return ('I don\'t know what "this" is.',
                'Can you tell me the Korean word, or describe it in English, like "It\'s a thing for..."?')
    entry = lookup(word)
    if entry is None:
        return ("Sorry, offline I only know a short list of words, and that one isn't in it.",
                'Can you describe it in English with easy words, like "It\'s a place where..." or '
                '"It\'s a thing for..."?')
    return (f'In English, we say "{entry.english}".', f'For example: "{entry.example}"',
            f'Can you say "{entry.english}"?')


def _clean(text: str) -> str:
    text = text.translate({ord(c): " " for c in _QUOTES}).strip(",.!?~ \t")
    return " ".join(_LEAD.sub("", text).split())


# -- the other requests ----------------------------------------------------------------
_KO_AGAIN = re.compile(r"다시\s*(?:한\s*번\s*(?:만\s*)?)?(?:말|얘기|이야기|들려|해\s*주|해줘|읽어|설명)|한\s*번\s*더"
                       r"|다시\s*요|다시\s*한\s*번\s*만|뭐라고\s*(?:요|하셨|했어|하신)|못\s*들었|잘\s*안\s*들려|안\s*들렸")
_KO_NOT_UNDERSTOOD = re.compile(r"(?:이해|알아\s*듣|알아\s*들)\S*\s*(?:가\s*|를\s*)?(?:잘\s*)?(?:안|못)"
                                r"|(?:안|못)\s*(?:알아\s*들|알아\s*듣|이해)|모르겠|무슨\s*(?:말|뜻|소리|의미)"
                                r"|뭔\s*(?:말|뜻|소리)|헷갈려")
_KO_FILLER = re.compile(r"^(?:죄송(?:해요|합니다)?|미안(?:해요|합니다)?|선생님|쌤|저기요?|음+|어+|아+|네|예|근데"
                        r"|그런데|혹시|잠깐만요?|잠시만요?|[\s,.!?~])*$")
_EN_AGAIN = [re.compile(p) for p in (
    r"^(?:sorry|pardon|pardon me|excuse me|what)\s*\?+$",
    r"^(?:(?:sorry|um|uh|ok|okay|teacher),?\s+)*(?:can|could|would|will)\s+you\s+(?:please\s+)?(?:say|repeat)\s+"
    r"(?:that|it|this|the question)(?:\s+(?:again|one more time))?(?:,?\s+please)?\s*[?.!]*$",
    r"^(?:(?:sorry|please),?\s+)*(?:say|repeat)\s+(?:that|it)(?:\s+again)?(?:,?\s+please)?\s*[?.!]*$",
    r"^(?:one more time|again)(?:,?\s+please)?\s*[?.!]*$",
    r"^(?:sorry,?\s+)?i\s+(?:didn't|did not)\s+(?:catch|hear)\s+(?:that|it|you)\s*[?.!]*$")]
_EN_NOT_UNDERSTOOD = [re.compile(p) for p in (
    r"^(?:(?:sorry|um|uh),?\s+)*i\s+(?:don't|do not|didn't|did not|can't|cannot)\s+(?:understand|get it|follow)"
    r"(?:\s+(?:you|that|it|the question|what you (?:said|mean|just said)))?(?:,?\s+sorry)?\s*[?.!]*$",
    r"^what\s+do\s+you\s+mean\s*[?.!]*$")]
_EN_FILLERS = frozenset("sorry um uh oh ok okay teacher excuse me please hmm well hey".split())


def _sentence_kind(sentence: str) -> tuple[str, str]:
    from tutor_app.tutor.rate import detect_rate_request

    word = how_to_say_word(sentence)
    if word:
        return HOW_TO_SAY, word
    rate = detect_rate_request(sentence)
    if rate is not None:
        return rate.direction, ""
    if HANGUL.search(sentence):
        if _KO_NOT_UNDERSTOOD.search(sentence):
            return NOT_UNDERSTOOD, ""
        if _KO_AGAIN.search(sentence):
            return AGAIN, ""
        return (_FILLER if _KO_FILLER.match(sentence) else _OTHER), ""
    low = " ".join(sentence.lower().replace("\u2019", "'").split())
    if any(p.match(low) for p in _EN_NOT_UNDERSTOOD):
        return NOT_UNDERSTOOD, ""
    if any(p.match(low) for p in _EN_AGAIN):
        return AGAIN, ""
    words = re.findall(r"[a-z']+", low)
    return (_FILLER if all(w in _EN_FILLERS for w in words) else _OTHER), ""


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?。？])\s+|\n+", (text or "").strip()) if s.strip()]


def _split(line: str) -> tuple[str, ...]:
    return tuple(_sentences(line))


def _last_question(line: str) -> str:
    """The last question of the tutor's line ("So, what do you do?" -> "What do you do?")."""
    for sentence in reversed(_sentences(line)):
        if sentence.endswith("?"):
            plain = re.sub(r"^(?:(?:so|and|oh|okay|ok|well|by the way|then),?\s+)+", "", sentence, flags=re.IGNORECASE)
            return plain[:1].upper() + plain[1:]
    return ""
