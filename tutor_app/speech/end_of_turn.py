"""Is the learner's turn over? One verdict from the two signals, asked after a short
silence: the audio model's probability (smart_turn.py) and the words so far
(turn_words.py).

- Words that cannot end a turn ("... planning to", "my friends and I") -> not complete,
  whatever the audio says: TTS voices and many learners drop their tone on fragments.
- Audio at or over the threshold -> complete.
- Audio under it -> complete only when the words clearly look finished (a short answer,
  a question, a fixed phrase; optionally a full-looking sentence). A full-looking
  sentence Whisper closed with a full stop (`finished_clause`: a finished clause with a
  finished tone) is complete too when `trust_clauses` (on by default), unless the audio
  is under `clause_min_audio`. Any other full-looking sentence the audio doubts is not
  complete but `likely`: the live call then ends the turn after a shorter wait than the
  thinking time (call/listen/endpointing.py).
- A missing signal (model not loaded, no transcript yet) -> the other one decides;
  both missing -> complete: the plain VAD rule, as before the model existed.

Pure: no clocks, no I/O, no logging of what was said.
"""
from __future__ import annotations

from dataclasses import dataclass

from tutor_app.speech.turn_words import FINISHED, SENTENCE, WordsVerdict, finished_clause, judge_words


@dataclass(frozen=True)
class EndOfTurnOptions:
    threshold: float = 0.5  # audio probability at which the turn counts as complete (pipecat's too)
    # A full-looking sentence ("I went hiking last weekend.") under the threshold:
    # complete when True; when False (default: cutting a learner off costs more than a
    # wait) it counts as unclear and the audio decides. Whisper errors make fragments
    # look like sentences ("... go to work by" -> "... go to work, bye!").
    trust_sentences: bool = False
    # Under this audio probability even clearly finished words do not end the turn
    # (0 = words always may); for tuning with `tutor-app bench turns`.
    min_audio_for_words: float = 0.0
    # A finished clause (turn_words.finished_clause) is complete when True, unless the
    # audio is under `clause_min_audio`: most whole sentences then end at the check instead
    # of the sentence wait (`bench turns`: 17 of 29 turns waited it; voice-to-voice p50
    # 1029 -> 931 ms, no pause clip cut). Whisper once wrote the thinking pause of "Next
    # month I am planning to | visit ..." as "Next month I am planning 2.": a "2"/"4"
    # after a verb is read as an unfinished "to"/"for" (turn_words.py).
    trust_clauses: bool = True
    clause_min_audio: float = 0.0


@dataclass(frozen=True)
class Verdict:
    complete: bool
    reason: str  # short, names the rule; never quotes the learner
    audio_probability: float | None = None
    words: WordsVerdict | None = None
    # Not complete, but the words look like a whole sentence: a shorter wait ends it.
    likely: bool = False

    @property
    def signals(self) -> str:
        """Which signals were there: "audio+words", "audio", "words" or "none" (VAD only)."""
        parts = [name for name, present in (("audio", self.audio_probability is not None),
                                            ("words", self.words is not None)) if present]
        return "+".join(parts) or "none"


def decide(audio_probability: float | None, transcript: str | None,
           options: EndOfTurnOptions | None = None) -> Verdict:
    """The end-of-turn verdict. `transcript` None or blank = no words yet (STT not done,
    or it heard nothing): the words signal is missing, not "unfinished"."""
    options = options or EndOfTurnOptions()
    words = judge_words(transcript) if transcript and transcript.strip() else None
    audio = audio_probability
    if words is not None and words.unfinished:
        return Verdict(False, f"words: {words.reason}", audio, words)
    if audio is None:
        if words is None:
            return Verdict(True, "no model, no words: silence rule (VAD only)", None, None)
        return Verdict(True, f"no audio model; words allow it ({words.reason})", None, words)
    if audio >= options.threshold:
        return Verdict(True, f"audio: complete ({audio:.2f} >= {options.threshold:.2f})", audio, words)
    finished = words is not None and (words.state == FINISHED
                                      or (options.trust_sentences and words.state == SENTENCE))
    if finished and words is not None and audio >= options.min_audio_for_words:
        return Verdict(True, f"words: {words.reason} (audio {audio:.2f})", audio, words)
    why = "no words yet" if words is None else f"words: {words.reason}"
    likely = words is not None and words.state in (FINISHED, SENTENCE)  # held back by the audio alone
    if (options.trust_clauses and likely and transcript and audio >= options.clause_min_audio
            and finished_clause(transcript)):
        return Verdict(True, f"words: a finished clause (audio {audio:.2f})", audio, words)
    return Verdict(False, f"audio: incomplete ({audio:.2f} < {options.threshold:.2f}); {why}", audio, words,
                   likely=likely)
