"""Turn-taking rules of a live call, as values and pure functions (the Listener applies them).

End of turn, two waits instead of one:
- `check_ms` into a silence the turn's audio and early transcript go to the end-of-turn
  judge (Smart Turn + the words so far). "Complete": the tutor's turn starts at once, as a
  speculation - committed when its first sample is about to play (or after `commit_ms` of
  silence), retracted without a trace if the learner goes on before that.
- "Not complete": keep listening up to `thinking_ms` of silence (by level, a setting, and
  following the learner's own pauses); any voiced frame resumes the turn. When the words
  look like a whole sentence and only the audio doubts it (the verdict is `likely`), the
  turn ends sooner: after `sentence_wait_ms` (half the thinking time, at least
  `sentence_min_ms`), speculated like a complete one.
- No judge (the model could not load): the VAD-only rule, `vad_silence_ms` of silence.

Speech over the tutor (full duplex): the tutor's voice is ducked at once (confirmed
speech, `min_speech_ms`). At `interrupt_ms` of voice its words so far are transcribed
(Whisper told to expect a backchannel); it is a real interruption (playback stops, the
rest is dropped) when those words ask for the floor (FLOOR_WORDS), when it reaches
`backchannel_max_ms` of voice, or when it ends with a floor word or more than three
words (`over_the_tutor`). A short "mm-hm", "yeah", "okay" - at most three words (`BACKCHANNEL_MAX_WORDS`), one of
them from BACKCHANNELS (`backchannel_in`: Whisper sometimes puts a word of the tutor's
residual echo before it), or a hum among more words than its voice can hold - lets the
tutor go on at full volume and is kept in the turn's transcript. A price: a three-word
"okay, I'm lost" over the tutor does not stop it (more words, or a floor word, do).
Shorter sounds the segmenter never confirms are handled by call/listen/overlap.py.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

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
    """The backchannel words of a transcript of at most three words ("Oh, I see" -> "Oh I
    see", "In the Mm-hmm." -> "Mm-hmm"), or "". Lenient because Whisper, told to expect a
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
# A hum takes at least this much voice: Whisper, told to expect one, sometimes repeats it
# ("Mm-hmm Mm-hmm Mm-hmm Mm-hmm" of one looped-back "mm-hmm").
HUM_MS = 250


def over_the_tutor(text: str, tutor_said: str, voiced_ms: float, so_far: bool = False) -> str:
    """What short speech over the tutor (under `backchannel_max_ms` of voice, `voiced_ms`
    of it heard) is, by its words: an INTERRUPTION when it asks for the floor (FLOOR_WORDS)
    or, once it ended, has more than three words - unless they are more than that voice
    can hold and hold a backchannel; a BACKCHANNEL when it holds backchannel words
    (`backchannel_heard`); else NOTHING - no words, the tutor's own
    words leaking back (`is_own_words`), or a few words Whisper made of a hum ("In a
    month." of a looped-back "mm-hmm"): not worth stopping the tutor for, and the learner
    who meant it goes on talking (then its length decides). Words `so_far` (at
    `interrupt_ms` of voice: a word or two, more are the echo) interrupt only by a floor word."""
    words = _WORD.findall((text or "").lower())
    if not words or is_own_words(text, tutor_said):
        return NOTHING
    if any(w in FLOOR_WORDS for w in words):
        return INTERRUPTION
    if backchannel_heard(text, voiced_ms):
        return BACKCHANNEL
    return INTERRUPTION if len(words) > BACKCHANNEL_MAX_WORDS and not so_far else NOTHING


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


@dataclass(frozen=True)
class TurnTakingOptions:
    check_ms: int = 200  # silence after which the end-of-turn judge is asked
    thinking_ms: int = 2000  # longest wait through a pause the judge called unfinished
    commit_ms: int = 700  # a "complete" turn is committed after this much silence at the latest
    vad_silence_ms: int = 600  # the VAD-only rule (no judge)
    # Voice over the tutor after which its words so far decide: an interruption unless they
    # are a backchannel (Whisper told to expect one). From `backchannel_max_ms` of voice it
    # is an interruption whatever the words: a looped-back "Mm-hmm." has ~480 ms of voice.
    interrupt_ms: int = 320
    backchannel_max_ms: int = 900  # longer than this is never a backchannel
    # A stretch too short to confirm as speech over the tutor is still a backchannel
    # candidate from this much voice on (call/listen/overlap.py), when the linear echo
    # removal takes this much less off it than off the tutor alone (a second voice).
    backchannel_min_ms: int = 32
    double_talk_db: float = 6.0
    duck_gain: float = 0.3  # the tutor's volume while the learner may be interrupting
    min_pause_ms: int = 250  # within-turn pauses shorter than this are not counted (word gaps)
    speculate: bool = True  # start the tutor's turn on a "complete" verdict before the wait ends
    # A full-looking sentence the audio model doubts (TTS voices and many learners end
    # with a flat tone): waiting the whole thinking time made half the finished turns
    # of `bench turns` wait 2 s; half of it still lets a learner think after a clause.
    sentence_share: float = 0.5
    sentence_min_ms: int = 800

    @property
    def sentence_wait_ms(self) -> int:
        """Silence after which a `likely` turn ends (never longer than the thinking time)."""
        return min(self.thinking_ms, max(self.sentence_min_ms, round(self.thinking_ms * self.sentence_share)))


def end_of_speech_time(now: float, frames_since_voice: int, frame_ms: float) -> float:
    """perf_counter time of the learner's last voiced sample, from the frame being processed
    now (the audio thread handles frames as they arrive)."""
    return now - frames_since_voice * frame_ms / 1000
