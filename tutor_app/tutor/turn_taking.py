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

Speech over the tutor (full duplex): the tutor's voice is ducked at once; it is a real
interruption (playback stops, the rest is dropped) when it has `interrupt_ms` of voiced
speech, or when it ends and its words are not a backchannel. A short "mm-hm", "yeah",
"okay" (at most `backchannel_max_ms` of voice, words from BACKCHANNELS only) lets the tutor
go on at full volume and is kept in the call's transcript.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

# Whole utterances that only say "I'm listening / go on". Agreement that answers a question
# ("yes" after "Do you ...?") is still only a backchannel while the tutor is talking.
BACKCHANNELS = frozenset("""
mm mmm mhm mm-hm mm-hmm mmhm mmhmm hm hmm uh-huh uhhuh uh huh ah aha oh ooh wow yeah yea yep yup yes ya
okay ok right sure cool nice great really i see alright all right got it good true exactly
""".split()) | {"i see", "all right", "got it", "uh huh", "oh okay", "oh i see", "okay okay", "yeah yeah"}

_WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")


def is_backchannel(text: str) -> bool:
    """True for "Mm-hm.", "Yeah!", "Oh, I see", "okay okay"; False for anything with a word
    outside the backchannel list ("Yeah, but wait", "Stop", "Sorry?") or for no words."""
    words = _WORD.findall((text or "").lower())
    if not words or len(words) > 3:
        return False
    phrase = " ".join(words)
    return phrase in BACKCHANNELS or all(w in BACKCHANNELS for w in words)


@dataclass(frozen=True)
class TurnTakingOptions:
    check_ms: int = 200  # silence after which the end-of-turn judge is asked
    thinking_ms: int = 2000  # longest wait through a pause the judge called unfinished
    commit_ms: int = 700  # a "complete" turn is committed after this much silence at the latest
    vad_silence_ms: int = 600  # the VAD-only rule (no judge)
    interrupt_ms: int = 480  # voiced speech over the tutor that is surely not a backchannel
    backchannel_max_ms: int = 900  # longer than this is never a backchannel
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
