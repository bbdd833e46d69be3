"""The words-so-far half of the end-of-turn decision: can the early transcript be the end
of a turn, whatever the tone of voice?

A learner searching for a word stops after "to", "the", "because", "my friends and I",
"I want", often with a falling tone (TTS voices do the same), and the audio model then
calls the fragment complete. English does not end a turn on an article, a possessive,
a conjunction, most prepositions, an auxiliary after its subject, a contracted "I'm",
or a filler, so those words veto the end of the turn.

Whisper punctuates fragments ("She told me that."), so punctuation never makes a turn
finished by itself; only its "..." / "-" (Whisper's marks for trailing off and for a
cut-off word) and a trailing comma count, as signs of an unfinished turn.

Four verdicts: "unfinished" (not the end), "finished" (clearly the end: a one-word or
short answer, a fixed phrase, a question), "sentence" (looks like a full sentence; not
certain, e.g. "The reason I study English." may go on) and "unclear" (the audio decides).
Pure Python, no I/O: nothing here logs what the learner said.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

UNFINISHED, FINISHED, SENTENCE, UNCLEAR = "unfinished", "finished", "sentence", "unclear"

ARTICLES = frozenset("a an the".split())
POSSESSIVES = frozenset("my your our their its".split())  # "his"/"her" can end a sentence
CONJUNCTIONS = frozenset("and but or nor because cause cuz although unless whereas whether if "
                         "than until till".split())
PREPOSITIONS = frozenset("to of about with from for at in on by into onto without between during "
                         "like as toward towards across among against per via under".split())
AUXILIARIES = frozenset("am is are was were be been being have has had do does did will would "
                        "can could should shall may might must".split())
SUBJECTS = frozenset("i we they he she".split())
FILLERS = frozenset("um umm uh uhh uhm er erm eh ah hmm hm mm mhm".split())
PRONOUN_CONTRACTIONS = frozenset(
    "i'm i've i'd i'll you're you've you'd you'll he's he'd he'll she's she'd she'll it's it'd "
    "it'll we're we've we'd we'll they're they've they'd they'll that's there's here's what's "
    "where's who's how's let's".split())
# Verbs that need what follows them ("I want", "Next month I am planning").
COMPLEMENT_VERBS = frozenset("want wants wanted wanna need needs needed gonna gotta planning plan "
                             "plans planned hoping hope wish decided trying think".split())
# "that" after these (and an optional object pronoun) opens a clause: "She told me that".
SAYING_VERBS = frozenset("said say says told tell tells think thought believe believed hope hoped "
                         "mean meant realized realised heard noticed felt feel sure so".split())
OBJECTS = frozenset("me you him her us them".split())
# Words "to" or "for" usually follows; after them Whisper writes a "to"/"for" cut off by a
# pause as a number ("Next month I am planning 2."), which reads like a finished sentence.
TO_BEFORE = frozenset("going have has had used able like love try tried go come came went back "
                      "due supposed listen talk according next thanks thank waiting looking".split())
HOMOPHONE_DIGITS = frozenset({"2", "4"})
WH_WORDS = frozenset("what who whom whose where when why how which whatever wherever whoever".split())
# Wh-words that let a clause end on a preposition or an auxiliary ("Where are you from?",
# "I know what it is"); not "when"/"why", which mostly open a fragment ("When I was").
STRANDING_WH = frozenset("what who whom where which how whatever wherever whoever".split())
# Endings that are often but not always unfinished: the audio decides.
AMBIGUOUS = frozenset("that this these those his her some any so just even still only also really "
                      "actually never always usually not up out off down over around back away "
                      "very quite".split())
# Phrases whose last word is on a list above but that end a turn.
COMPLETE_ENDINGS = (
    ("and", "so", "on"), ("so", "on"), ("and", "so", "forth"), ("later", "on"), ("from", "now", "on"),
    ("come", "on"), ("go", "on"), ("hold", "on"), ("come", "in"), ("thank", "you", "for", "asking"),
)
# Words a real goodbye follows ("okay, bye", "see you, bye", "thanks, bye").
FAREWELL_BEFORE_BYE = frozenset("bye good okay ok thanks thank you then now everyone everybody all guys "
                                "well alright later soon tomorrow night so".split())
SHORT_ANSWER_START = frozenset("yes yeah yep yup no nope sure oh well okay ok right of course".split())
FIXED_PHRASES = frozenset({
    "thank you", "thanks", "thank you very much", "thanks a lot", "of course", "of course not",
    "me too", "me neither", "not really", "not yet", "i see", "i don't know", "i'm not sure",
    "i think so", "i hope so", "i guess so", "i don't think so", "i hope not", "i agree",
    "no problem", "good morning", "good afternoon", "good evening", "good night", "see you",
    "see you later", "that's right", "that's true", "sounds good", "sounds great", "not bad",
    "why not", "you too", "i'm fine", "i'm good", "i'm okay", "excuse me", "i'm sorry",
    "never mind", "all right", "alright", "nice to meet you", "how are you", "i understand",
})


@dataclass(frozen=True)
class WordsVerdict:
    state: str  # unfinished | finished | sentence | unclear
    reason: str  # why, naming the rule (never the learner's words beyond the last one)
    last_word: str = ""

    @property
    def unfinished(self) -> bool:
        return self.state == UNFINISHED

    @property
    def finished(self) -> bool:
        return self.state == FINISHED


_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)*")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def judge_words(text: str) -> WordsVerdict:
    """The verdict on an early transcript (Whisper's text of the turn so far)."""
    raw = (text or "").strip().replace("\u2019", "'").replace("\u2026", "...")
    words = tokens(raw)
    if not words:
        return WordsVerdict(UNCLEAR, "no words")
    last = words[-1]
    tail = raw.rstrip()
    if tail.endswith("...") or tail.endswith(".."):
        return WordsVerdict(UNFINISHED, "trails off (...)", last)
    if re.search(r"\w[-\u2014\u2013]$", tail) or tail.endswith(("-", "\u2014", "\u2013")):
        return WordsVerdict(UNFINISHED, "cut-off word", last)
    if tail.endswith((",", ";", ":")):
        return WordsVerdict(UNFINISHED, "ends on a comma", last)
    sentence = tokens(_SENTENCE_END.split(tail)[-1]) or words
    verdict = _unfinished(sentence, last, tail.endswith("?"))
    if verdict is not None:
        return verdict
    return _finished(tail, sentence, last)


CLAUSE_MIN_WORDS = 4


def finished_clause(text: str) -> bool:
    """A whole-looking sentence ("sentence" above) that Whisper closed with a full stop or
    an exclamation mark - its marks for a falling, finished tone (it writes "..." and ","
    for a voice that trails off or goes on) - of at least CLAUSE_MIN_WORDS words (a short
    one is too easily a fragment Whisper tidied up)."""
    tail = (text or "").strip().replace("\u2026", "...")
    if not tail.endswith((".", "!")) or tail.endswith(".."):
        return False
    return judge_words(tail).state == SENTENCE and len(tokens(_SENTENCE_END.split(tail)[-1])) >= CLAUSE_MIN_WORDS


def tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower().replace("\u2019", "'"))


def _ends_with(words: list[str], phrase: tuple[str, ...]) -> bool:
    return len(words) >= len(phrase) and tuple(words[-len(phrase):]) == phrase


def _unfinished(words: list[str], last: str, question: bool = False) -> WordsVerdict | None:
    """The rules that veto an end of turn, or None. `question`: the sentence ends on "?"."""
    if any(_ends_with(words, phrase) for phrase in COMPLETE_ENDINGS):
        return None
    before = words[:-1]
    prev = before[-1] if before else ""
    if last in FILLERS:
        return WordsVerdict(UNFINISHED, "ends on a filler (um/uh)", last)
    if ((last in HOMOPHONE_DIGITS and (prev in COMPLEMENT_VERBS or prev in TO_BEFORE or prev.endswith("ing")))
            or (last in ("too", "two") and prev in COMPLEMENT_VERBS and len(words) > 2)):
        return WordsVerdict(UNFINISHED, f"ends on '{last}' after a verb: a 'to'/'for' before a pause", last)
    if last in ARTICLES:
        return WordsVerdict(UNFINISHED, "ends on an article", last)
    if last in POSSESSIVES or (last == "his" and prev in PREPOSITIONS and prev != "of"):
        return WordsVerdict(UNFINISHED, "ends on a possessive", last)  # "in his", not "of his"
    if last in PRONOUN_CONTRACTIONS:
        return WordsVerdict(UNFINISHED, "ends on a contracted verb (I'm, it's ...)", last)
    if last in CONJUNCTIONS:
        return WordsVerdict(UNFINISHED, "ends on a conjunction", last)
    # A wh-word shortly before a stranded preposition or a final auxiliary makes a
    # question or a clause that can end there ("Where are you from?", "I know what it is").
    # Not a wh-word that opens the sentence without a question mark: that clause is still
    # waiting for its verb ("What I mean is", "Where I live in" - Whisper's "When I was a
    # child I lived in" before a thinking pause, which a reply 1 s into the pause cut).
    opens = bool(before) and before[0] in STRANDING_WH and not question
    has_wh = not opens and any(w in STRANDING_WH for w in before[-6:])
    if last in PREPOSITIONS:
        if has_wh and last != "to":
            return None
        return WordsVerdict(UNFINISHED, "ends on a preposition", last)
    if last in AUXILIARIES:
        if (not opens and any(w in STRANDING_WH for w in before[-3:])) or _short_answer(words):
            return None
        return WordsVerdict(UNFINISHED, "ends on a verb that needs more (is, can ...)", last)
    if last in SUBJECTS:
        if prev in AUXILIARIES or prev.endswith("n't") or prev in ("than", "as") or len(words) == 1:
            return None  # "So do I", "Am I?", "taller than I", "I."
        return WordsVerdict(UNFINISHED, "ends on a subject (... and I)", last)
    if last in COMPLEMENT_VERBS:
        if has_wh or any(w in ("if", "as") for w in before) or len(words) == 1:
            return None  # "What do you want?", "if you want"
        return WordsVerdict(UNFINISHED, "ends on a verb that needs an object (I want ...)", last)
    if last == "that":
        core = [w for w in before if w not in OBJECTS]
        if core and core[-1] in SAYING_VERBS:
            return WordsVerdict(UNFINISHED, "opens a clause (... told me that)", last)
    if last == "so" and prev in ("and", "but", "or"):
        return WordsVerdict(UNFINISHED, "ends on a conjunction", last)
    return None


def _short_answer(words: list[str]) -> str:
    """"lead" for 'Yes, I am', 'No, it isn't', 'Of course I do' and 'I can't' (an answer);
    "bare" for 'I am', 'I will' (an answer, or a learner stopping to think); else ""."""
    core = list(words)
    while core and core[0] in SHORT_ANSWER_START:
        core = core[1:]
    if not (len(core) == 2 and core[0] in SUBJECTS | {"you", "it", "there", "that"}
            and (core[1] in AUXILIARIES or core[1].endswith("n't"))):
        return ""
    return "lead" if len(core) < len(words) or core[1].endswith("n't") else "bare"


def _finished(tail: str, words: list[str], last: str) -> WordsVerdict:
    core = list(words)
    while len(core) > 1 and core[0] in FILLERS | {"well", "oh", "ah", "so"}:
        core = core[1:]  # "Hmm, I think so." is "I think so."
    if " ".join(core) in FIXED_PHRASES:
        return WordsVerdict(FINISHED, "a fixed phrase", last)
    if _short_answer(words) == "lead" or (len(words) <= 3 and words[0] in SHORT_ANSWER_START
                                and last not in AMBIGUOUS):
        return WordsVerdict(FINISHED, "a short answer", last)
    if len(words) == 1 and last not in AMBIGUOUS:
        return WordsVerdict(FINISHED, "a one-word answer", last)
    if tail.endswith("?") and (words[0] in WH_WORDS or words[0] in AUXILIARIES
                               or words[0].endswith("n't")):
        return WordsVerdict(FINISHED, "a question", last)
    if last in AMBIGUOUS:
        return WordsVerdict(UNCLEAR, "ends on a word that may go on", last)
    if last == "bye" and len(core) >= 4 and core[-2] not in FAREWELL_BEFORE_BYE:
        # "I usually go to work by ..." comes out of Whisper as "... to work, bye!"
        return WordsVerdict(UNCLEAR, "'bye' after a phrase: often a cut-off 'by'", last)
    if len(words) >= 3 and _has_clause(words[:-1]):
        return WordsVerdict(SENTENCE, "looks like a full sentence", last)
    return WordsVerdict(UNCLEAR, "no rule applies", last)


def _has_clause(words: list[str]) -> bool:
    """A subject or a verb form before the last word (rough, on purpose: a hint only)."""
    return any(w in SUBJECTS or w in {"you", "it", "there", "that", "this", "these", "those"}
               or w in AUXILIARIES
               or w in PRONOUN_CONTRACTIONS or w.endswith("n't") for w in words)
