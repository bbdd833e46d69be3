"""The rules of turn-taking on words, as values and pure functions (the strategies of
call/listen/ apply them): what a backchannel is, which words ask for the floor, what short
speech over the tutor was.

Speech over the tutor is a real interruption (playback stops, the rest is dropped) when its
words ask for the floor (FLOOR_WORDS), or, once it ended, when it has more than
BACKCHANNEL_MAX_WORDS words (`over_the_tutor`). A short "mm-hm", "yeah", "okay" - at most
BACKCHANNEL_MAX_WORDS words, one of them from BACKCHANNELS (`backchannel_in`: Whisper
sometimes puts a word of the tutor's residual echo before it), or a hum among more words
than its voice can hold - lets the tutor go on at full volume and is kept in the turn's
transcript. A price: an "okay, I'm lost" of BACKCHANNEL_MAX_WORDS words over the tutor
does not stop it (more words, or a floor word, do). When in the speech these rules are
asked: call/listen/interruption.py; sounds too short to confirm: call/listen/overlap.py.
"""
from __future__ import annotations

import re

# Whole utterances that only say "I'm listening / go on". Agreement that answers a question
# ("yes" after "Do you ...?") is still only a backchannel while the tutor is talking.
BACKCHANNELS = frozenset("""
mm mmm mhm mm-hm mm-hmm mmhm mmhmm hm hmm uh-huh uhhuh ah aha oh ooh wow yeah yea yep yup yes ya
okay ok right sure cool nice great really alright good true exactly
""".split())
# ... and phrases, whose words alone are not one ("I" of "Can I" is no backchannel).
BACKCHANNEL_PHRASES = ("oh i see", "i see", "all right", "got it", "uh huh")

# A backchannel that is only a hum, however Whisper spells it ("Mm-hmm", "m-m-hmm", "Hmm",
# "uh-huh"): never the start of a sentence.
_HUM = re.compile(r"[mh-]*m[mh-]*|uh-?huh")

# Words that ask for the floor: with one of them a short utterance is never a backchannel.
# Not "no": Whisper made "Okay, no more." of a looped-back "mm-hmm" (a learner's "No, ..."
# that goes on stops the tutor by its length or its other words).
FLOOR_WORDS = frozenset("but wait stop sorry what excuse hold hang question pardon actually sec".split())

# How Whisper should spell the commonest ones when told to expect a backchannel.
BACKCHANNEL_HINTS = ("Mm-hmm", "Uh-huh", "Yeah", "Okay", "Right")

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")

# A backchannel is at most this many words ("Oh, I see"); more, once the speech over the
# tutor has ended, ask for the floor (`over_the_tutor`).
BACKCHANNEL_MAX_WORDS = 3


def is_backchannel(text: str) -> bool:
    """True for "Mm-hm.", "Yeah!", "Oh, I see", "okay okay"; False for anything with a word
    outside the backchannel list ("Yeah, but wait", "Stop", "Sorry?") or for no words."""
    words = _WORD.findall((text or "").lower())
    if not words or len(words) > BACKCHANNEL_MAX_WORDS:
        return False
    phrase = f" {' '.join(words)} "
    for known in BACKCHANNEL_PHRASES:
        phrase = phrase.replace(f" {known} ", " mm ")
    return all(w in BACKCHANNELS or _HUM.fullmatch(w) for w in phrase.split())


def backchannel_in(text: str) -> str:
    """The backchannel words of a transcript of at most BACKCHANNEL_MAX_WORDS words ("Oh, I
    see" -> "Oh I see", "In the Mm-hmm." -> "Mm-hmm"), or "". Lenient because Whisper, told to expect a
    backchannel, sometimes puts a word of the tutor's residual echo before it; never for
    words that ask for the floor ("Yeah, but wait", "Okay, sorry")."""
    words = [w.strip(".,!?;:\"'") for w in (text or "").split()]
    words = [w for w in words if w]
    if not words or len(words) > BACKCHANNEL_MAX_WORDS or any(w.lower() in FLOOR_WORDS for w in words):
        return ""
    if is_backchannel(text):
        return " ".join(words)
    return " ".join(w for w in words if w.lower() in BACKCHANNELS or _HUM.fullmatch(w.lower()))


def is_own_words(heard: str, said: str, share: float = 0.6) -> bool:
    """True when most words heard over the tutor are words it has just said: a leak of its
    own echo through the canceller (on the looped-back test sound card it came through as
    "so well done for gold" of "so well done for going"), not the learner. One word too: a
    leaked "what" or "but" of the tutor's must not stop it (a learner's "wait" that the
    tutor also said stops it at `backchannel_max_ms` of voice instead)."""
    heard_words = _WORD.findall((heard or "").lower())
    said_words = set(_WORD.findall((said or "").lower()))
    if not heard_words or not said_words:
        return False
    return sum(w in said_words for w in heard_words) >= share * len(heard_words)


BACKCHANNEL, INTERRUPTION, NOTHING = "backchannel", "interruption", "nothing"


# More words than this per second of voice were not all said by the learner: Whisper made
# some of the tutor's residual echo (the linear fit is short right as a reply begins):
# "Mm-hmm. So, I'm gonna go for go. Mm-hmm." of two looped-back "mm-hmm"s.
MAX_WORDS_PER_VOICED_S = 4.0
# Three times that many: hardly any were the learner's. Over a looped-back "Mm-hmm." on a
# slow CPU Whisper made 6 words of 384 ms of voice and 9 of 416 ms (the tutor's residual echo
# around the hum, garbled past `is_own_words`): an "interruption" that stopped the tutor. A
# learner's own question has the voice for its words (2-4 a second), even with AEC3 hiding
# part of it.
ECHO_WORDS_PER_VOICED_S = 3 * MAX_WORDS_PER_VOICED_S
# A hum takes at least this much voice: Whisper, told to expect one, sometimes repeats it
# ("Mm-hmm Mm-hmm Mm-hmm Mm-hmm" of one looped-back "mm-hmm").
HUM_MS = 250


def over_the_tutor(text: str, tutor_said: str, voiced_ms: float, so_far: bool = False,
                   no_sentence: bool = False) -> str:
    """What short speech over the tutor (under `backchannel_max_ms` of voice, `voiced_ms`
    of it heard) is, by its words: an INTERRUPTION when it asks for the floor (FLOOR_WORDS)
    or, once it ended, has more than BACKCHANNEL_MAX_WORDS words - unless they are more than that voice
    can hold and hold a backchannel; a BACKCHANNEL when it holds backchannel words
    (`backchannel_heard`); else NOTHING - no words, the tutor's own
    words leaking back (`is_own_words`), a few words Whisper made of a hum ("In a
    month." of a looped-back "mm-hmm"), or far more words than the voice can hold
    (ECHO_WORDS_PER_VOICED_S: the tutor's residual echo made into words): not worth stopping the tutor for, and the learner
    who meant it goes on talking (then its length decides). Words `so_far` (at
    `words_at_ms` of voice: a word or two, more are the echo) interrupt only by a floor word;
    so do the words of speech whose sound holds `no_sentence` (interruption.py: a short
    closed-mouth hum throughout, or what the echo check called the tutor's own echo): a
    learner does not say four words as "mm", Whisper made the tutor's residual echo round it
    into them (a looped-back "Mm-hmm." stopped the tutor as "6 words, hum" in 1 of ~10 runs
    of the e2e backchannel test)."""
    words = _WORD.findall((text or "").lower())
    if not words or is_own_words(text, tutor_said):
        return NOTHING
    if any(w in FLOOR_WORDS for w in words):
        return INTERRUPTION
    if backchannel_heard(text, voiced_ms):
        return BACKCHANNEL
    if len(words) > ECHO_WORDS_PER_VOICED_S * voiced_ms / 1000:
        return NOTHING  # far more words than the voice holds: Whisper's words of the echo
    return INTERRUPTION if len(words) > BACKCHANNEL_MAX_WORDS and not (so_far or no_sentence) else NOTHING


def backchannel_heard(text: str, voiced_ms: float) -> str:
    """The backchannel words in the transcript of short speech over the tutor: `backchannel_in`,
    or its hums ("Mm-hmm") when it has more words than `voiced_ms` of voice can hold
    (the rest are the tutor's echo; a real sentence may begin "Okay, ..." but not "Mm-hmm"),
    as many as that voice can hold (HUM_MS each)."""
    found = backchannel_in(text)
    if found or len(text.split()) <= MAX_WORDS_PER_VOICED_S * voiced_ms / 1000:
        return found
    hums = [w for w in (w.strip(".,!?;:\"'") for w in text.split()) if _HUM.fullmatch(w.lower())]
    return " ".join(hums[:max(1, int(voiced_ms // HUM_MS))])


def end_of_speech_time(now: float, frames_since_voice: int, frame_ms: float) -> float:
    """perf_counter time of the learner's last voiced sample, from the frame being processed
    now (the audio thread handles frames as they arrive)."""
    return now - frames_since_voice * frame_ms / 1000
