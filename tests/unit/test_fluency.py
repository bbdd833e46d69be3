"""Fluency from the recogniser's word timings: rate, runs between pauses, pause ratio, and
the words it was unsure of (confidence, not a pronunciation score)."""
from __future__ import annotations

from tutor_app.core.types import Segment, Word
from tutor_app.tutor.fluency import call_fluency, turn_fluency
from tutor_app.tutor.report import TurnRecord, build_report


def seg(*words: tuple[str, float, float, float]) -> Segment:
    return Segment(words[0][1], words[-1][2], " ".join(w[0] for w in words),
                   tuple(Word(start, end, text, p) for text, start, end, p in words))


def test_runs_pauses_rate_and_unsure_words_of_a_turn():
    turn = turn_fluency([seg(("I", 0.0, 0.2, 0.99), ("went", 0.25, 0.5, 0.95), ("to", 0.55, 0.6, 0.9),
                             ("Hongdae,", 1.6, 2.0, 0.31), ("yesterday", 2.05, 2.6, 0.45))])
    assert turn.words == 5 and turn.speaking_s == 2.6
    assert turn.runs == [3, 2]  # one pause of 1.0 s after "to"
    assert round(turn.pause_s, 2) == 1.0
    assert turn.unsure == [("Hongdae", 0.31), ("yesterday", 0.45)]


def test_a_call_sums_its_spoken_turns_and_ignores_typed_ones():
    a = turn_fluency([seg(("hello", 0.0, 0.5, 0.9), ("there", 0.6, 1.0, 0.4))])
    b = turn_fluency([seg(("nice", 0.0, 0.4, 0.2), ("to", 0.5, 0.6, 0.9), ("meet", 1.2, 1.5, 0.9),
                          ("you", 1.55, 2.0, 0.9))])
    result = call_fluency([a, None, b])
    assert result["spoken_turns"] == 2
    assert result["words_per_minute"] == round(60 * 6 / 3.0, 1)
    assert result["mean_run_words"] == round((2 + 2 + 2) / 3, 1)
    assert result["pause_ratio"] == round(0.6 / 3.0, 3)
    assert [u["word"] for u in result["unsure_words"]] == ["nice", "there"]  # least sure first
    assert call_fluency([None]) == {} and turn_fluency([Segment(0, 1, "hi")]) is None


def test_the_report_carries_the_call_fluency():
    spoken = TurnRecord(10.0, "hello there", "Hi!", 1.0,
                        fluency=turn_fluency([seg(("hello", 0.0, 0.5, 0.9), ("there", 0.6, 1.0, 0.4))]))
    typed = TurnRecord(20.0, "I typed this", "Ok.")
    report = build_report("s", 0.0, 30.0, [spoken, typed]).to_dict()
    assert report["fluency"]["spoken_turns"] == 1 and report["fluency"]["unsure_words"][0]["word"] == "there"
    assert build_report("s", 0.0, 30.0, [typed]).to_dict()["fluency"] == {}


def test_vad_pauses_count_even_where_word_timings_absorb_them():
    """Whisper stretches "to" over the silence; the VAD's quiet stretch still splits the run."""
    from tutor_app.speech.vad import quiet_stretches

    words = seg(("I", 0.0, 0.2, 0.99), ("went", 0.2, 0.5, 0.95), ("to", 0.5, 1.6, 0.9),
                ("Busan", 1.6, 2.0, 0.9))
    probs = [0.9] * 19 + [0.1] * 25 + [0.9] * 20  # 32-ms frames: quiet from 0.608 s to 1.408 s
    quiet = quiet_stretches(probs)
    assert quiet == [(0.608, 1.408)] and quiet_stretches([0.1] * 7 + [0.9]) == []  # 224 ms is no pause
    turn = turn_fluency([words], quiet)
    assert turn.runs == [3, 1] and round(turn.pause_s, 3) == 0.8
    assert turn_fluency([words], [(5.0, 6.0)]).runs == [4]  # quiet after the last word is not a pause
