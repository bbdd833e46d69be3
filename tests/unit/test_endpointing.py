"""The endpointing strategy (call/listen/endpointing.py) on scripted silences, request states
and verdicts: what it asks the Listener to do, frame by frame. No audio, no threads."""
from __future__ import annotations

from types import SimpleNamespace

from tutor_app.call.listen.endpointing import Do, Endpointing, Ready
from tutor_app.call.options import EndpointingOptions, SpeculationOptions, frames

COMPLETE = SimpleNamespace(complete=True)
UNFINISHED = SimpleNamespace(complete=False)
LIKELY = SimpleNamespace(complete=False, likely=True)
EARLY, CHECK = frames(EndpointingOptions().early_stt_ms), frames(EndpointingOptions().check_ms)  # 1 and 5 frames
# a speculation is committed this long after it started (`commit_ms` of silence in all)
AFTER = frames(SpeculationOptions().commit_ms - EndpointingOptions().check_ms)
JUDGE = frames(EndpointingOptions().judge_ms)  # 4: asked before the check, decides from it
EARLIEST = frames(SpeculationOptions().earliest_ms)  # 15: no reply plays before it


class Script:
    """Plays the Listener: does what endpointing asks; its requests answer as scripted (the
    early transcript is in `words_after` frames after it was asked, the judge's verdict
    from silence `answers_at` on)."""

    def __init__(self, ends: Endpointing, judge: bool = True, verdict=COMPLETE, over_tutor: bool = False,
                 answers_at: int = CHECK + 1, busy_until: int = 0, words_after: int = 1) -> None:
        self.ends, self.judge, self.verdict, self.over_tutor = ends, judge, verdict, over_tutor
        self.answers_at, self.busy_until, self.words_after = answers_at, busy_until, words_after
        self.asked_at = 0

    def run(self, last: int, first: int = 1) -> list[tuple[int, Do]]:
        """Silent frames `first`..`last` (up to a commit): what was asked for, with the silence
        it came at."""
        done: list[tuple[int, Do]] = []
        for silence in range(first, last + 1):
            while (do := self.ends.step(silence, self._ready(silence))) is not None:
                done.append((silence, do))
                if do == Do.TRANSCRIBE:
                    self.ends.asked(0, 30, transcript="its words")
                    self.asked_at = silence
                elif do == Do.JUDGE and not self.judge:
                    self.ends.no_judge(self.over_tutor)
                elif do == Do.VERDICT and self.ends.verdict(self.verdict) == Do.SPECULATE:
                    done.append((silence, Do.SPECULATE))
                    self.ends.speculated("a turn", silence)
                elif do == Do.SPECULATE:
                    self.ends.speculated("a turn", silence)
                elif do in (Do.COMMIT, Do.OVER_TUTOR):
                    self.ends.reset()
                    return done  # the utterance is over (or an interruption judged afresh)
        return done

    def _ready(self, silence: int) -> Ready:
        check = self.ends.check
        return Ready(stt_busy=silence <= self.busy_until,
                     transcript=check is not None and silence >= self.asked_at + self.words_after,
                     verdict=self.judge and check is not None and check.judged and silence >= self.answers_at,
                     over_tutor=self.over_tutor)


def _ends(**options) -> Endpointing:
    speculation = SpeculationOptions(**{k: options.pop(k) for k in ("enabled", "commit_ms", "hold_likely",
                                                                    "earliest_ms")
                                        if k in options})
    return Endpointing(EndpointingOptions(**options), speculation)


def test_a_complete_turn_is_transcribed_early_judged_early_decided_at_the_check_and_committed():
    script = Script(_ends())
    assert script.run(40) == [(EARLY, Do.TRANSCRIBE), (JUDGE, Do.JUDGE), (CHECK + 1, Do.VERDICT),
                              (CHECK + 1, Do.SPECULATE), (EARLIEST, Do.RELEASE), (CHECK + 1 + AFTER, Do.COMMIT)]
    assert script.ends.how == "judge"  # committed `commit_ms - check_ms` after it started


def test_a_verdict_in_before_the_check_decides_only_at_the_check():
    """The judge hears the same span whenever it is asked; a pause shorter than
    `check_ms` still never ends a turn."""
    script = Script(_ends(), answers_at=JUDGE + 1)
    done = script.run(40)
    assert done[:4] == [(EARLY, Do.TRANSCRIBE), (JUDGE, Do.JUDGE), (CHECK, Do.VERDICT), (CHECK, Do.SPECULATE)]


def test_without_an_early_judge_it_is_asked_at_the_check():
    script = Script(_ends(judge_ms=0))
    assert script.run(CHECK + 1)[:3] == [(EARLY, Do.TRANSCRIBE), (CHECK, Do.JUDGE), (CHECK + 1, Do.VERDICT)]


def test_a_reply_ready_in_a_comma_pause_is_held_until_the_earliest_silence():
    """'Hello, | I had ...': judged complete at the check, but the reply may play only at
    `earliest_ms`; voice before that (Piper's comma: 9 silent frames) finds it unplayed."""
    ends = _ends()
    script = Script(ends)
    script.run(9)
    assert ends.speculation is not None and ends.speculation.held and ends.holds(9)
    assert ends.take_speculation() is not None  # the learner went on: retracted, never heard


def test_a_reply_speculated_after_the_earliest_silence_is_not_held():
    script = Script(_ends(), answers_at=EARLIEST + 1)
    done = script.run(40)
    assert Do.RELEASE not in [do for _, do in done]
    assert (EARLIEST + 1, Do.SPECULATE) in done


def test_without_an_earliest_silence_a_complete_turn_plays_at_once():
    ends = _ends(earliest_ms=0)
    Script(ends).run(CHECK + 1)
    assert ends.speculation is not None and not ends.speculation.held


def test_a_late_verdict_commits_a_while_after_the_speculation():
    script = Script(_ends(), answers_at=frames(400))
    done = script.run(40)
    assert done[2:] == [(frames(400), Do.VERDICT), (frames(400), Do.SPECULATE), (EARLIEST, Do.RELEASE),
                        (frames(400) + AFTER, Do.COMMIT)]


def test_no_early_guess_while_a_stale_one_is_still_decoding():
    script = Script(_ends(), busy_until=10)
    assert script.run(11)[0] == (11, Do.TRANSCRIBE)


def test_an_unfinished_turn_is_left_to_the_thinking_time():
    script = Script(_ends(), verdict=UNFINISHED)
    assert [do for _, do in script.run(100)] == [Do.TRANSCRIBE, Do.JUDGE, Do.VERDICT]


def test_a_likely_turn_is_speculated_held_at_once_and_released_at_the_sentence_wait():
    """The reply is asked for on the verdict, but may play only after the sentence wait
    (half the thinking time); committed as long after that as if speculated then."""
    script = Script(_ends(thinking_ms=2000), verdict=LIKELY)
    done = script.run(100)
    assert done == [(EARLY, Do.TRANSCRIBE), (JUDGE, Do.JUDGE), (CHECK + 1, Do.VERDICT), (CHECK + 1, Do.SPECULATE),
                    (frames(1000), Do.RELEASE), (frames(1000) + AFTER, Do.COMMIT)]
    assert script.ends.how == "sentence"


def test_a_held_speculation_is_held_until_released():
    ends = _ends(thinking_ms=2000)
    script = Script(ends, verdict=LIKELY)
    script.run(CHECK + 1)
    assert ends.holds(CHECK + 2) and ends.speculation is not None and ends.speculation.held
    script.run(frames(1000), first=CHECK + 2)
    assert ends.speculation is not None and not ends.speculation.held and not ends.holds(frames(1000))


def test_without_holding_a_likely_turn_is_speculated_at_the_sentence_wait():
    script = Script(_ends(thinking_ms=2000, hold_likely=False), verdict=LIKELY)
    done = script.run(100)
    assert [do for _, do in done] == [Do.TRANSCRIBE, Do.JUDGE, Do.VERDICT, Do.SPECULATE, Do.COMMIT]
    assert done[3][0] == frames(1000) and script.ends.how == "sentence"  # half the thinking time


def test_without_a_judge_nothing_is_decided_here():
    script = Script(_ends(), judge=False)
    assert [do for _, do in script.run(100)] == [Do.TRANSCRIBE, Do.JUDGE]


def test_without_speculation_a_complete_turn_waits_for_the_silence_window():
    script = Script(_ends(enabled=False))
    assert [do for _, do in script.run(100)] == [Do.TRANSCRIBE, Do.JUDGE, Do.VERDICT]


def test_speech_over_the_tutor_is_decided_by_its_words_even_without_a_judge():
    script = Script(_ends(), judge=False, over_tutor=True, words_after=10)
    assert script.run(30) == [(EARLY, Do.TRANSCRIBE), (JUDGE, Do.JUDGE), (EARLY + 10, Do.OVER_TUTOR)]


def test_speech_over_the_tutor_waits_for_its_own_quiet_not_the_turns_check():
    """A learner's own turn is decided from `check_ms` (a reply started then is held and
    retractable); speech over the tutor only from `over_tutor_ms`: its end is what is heard."""
    over = frames(EndpointingOptions().over_tutor_ms)
    assert over > CHECK
    words_in = CHECK - EARLY  # the words are in at the check, before the over-tutor quiet
    script = Script(_ends(), over_tutor=True, words_after=words_in, answers_at=CHECK)
    assert script.run(30)[-1] == (over, Do.OVER_TUTOR)
    script = Script(_ends(), words_after=words_in, answers_at=CHECK)
    assert script.run(30)[2] == (CHECK, Do.VERDICT)


def test_voice_drops_the_guess_and_a_new_silence_asks_again():
    script = Script(_ends(), verdict=UNFINISHED)
    script.run(10)
    script.ends.voiced()
    assert script.run(EARLY) == [(EARLY, Do.TRANSCRIBE)]


def test_a_speculation_the_learner_talks_through_is_handed_back_for_retraction():
    script = Script(_ends())
    script.run(CHECK + 2)
    spec = script.ends.take_speculation()
    assert spec is not None and (spec.start, spec.end, spec.turn) == (0, 30, "a turn")
    assert script.ends.speculation is None


def test_a_fading_voiced_frame_asks_for_the_words_and_the_silence_after_it_goes_on_from_there():
    """The guess asked at a fading frame is the one the silence judges: not asked again."""
    ends = _ends()
    assert ends.fading(Ready())
    ends.asked(0, 30, transcript="its words")
    assert not ends.fading(Ready())  # one guess at a time
    script = Script(ends, words_after=0)
    assert [do for _, do in script.run(40)] == [Do.JUDGE, Do.VERDICT, Do.SPECULATE, Do.RELEASE, Do.COMMIT]


def test_a_fading_frame_asks_nothing_while_a_stale_guess_decodes_over_the_tutor_or_when_turned_off():
    assert not _ends().fading(Ready(stt_busy=True))
    assert not _ends().fading(Ready(over_tutor=True))  # its words judge a short sound, at its end
    assert not _ends(fading_stt=False).fading(Ready())
    assert not _ends(early_stt_ms=0).fading(Ready())  # no early guess at all
