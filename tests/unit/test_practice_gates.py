"""The gates between a model's call-end review and the learner's practice items, with the
junk a small offline model really filed: the learner's own wrong line as a "new word",
their self-introduction and name as words, a "correction" that keeps the error, the
tutor's line as the learner's mistake. None of it becomes an item, a tick or a plan."""
from __future__ import annotations

import json
import logging
from datetime import datetime, timezone

import pytest

from tutor_app.practice import gates, schedule
from tutor_app.practice.calls import after_call, start_plan
from tutor_app.practice.gates import Known, correction_fault, gate_review, item_fault, word_fault
from tutor_app.practice.items import MISTAKE, WORD, PracticeItem
from tutor_app.practice.outcome import REPEATED, USED, judge
from tutor_app.practice.plan import due_items, plan_text
from tutor_app.practice.store import PracticeStore
from tutor_app.tutor.report import Correction
from tutor_app.tutor.review import parse_review

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
LEARNER = ["Hello, my name is Minji. I am office worker in Seoul.", "I am go to school yesterday with my friend."]
TUTOR = ["Hello, my name is Minji. I'm a professional office worker in Seoul. I love the culture of Seoul!",
         "My friend has gone to school with me too! Do you commute by subway?"]
ERROR_LINE = "I am go to school yesterday"
GOOD = Correction(ERROR_LINE, "I went to school yesterday", "a past event", "tense")
KEEPS_ERROR = Correction(ERROR_LINE, "I am go to school yesterday with friend", "", "other")
TUTORS_LINE = Correction("I'm a professional office worker in Seoul", "I am a professional office worker in Seoul")


def test_the_learners_wrong_line_is_not_a_new_word():
    assert word_fault(ERROR_LINE, LEARNER) is not None
    assert word_fault("I am go to school yesterday with my friend.", LEARNER) is not None
    # Even short enough to pass as a phrase, the wrong part of a line is no word to learn.
    wrong = gates.wrong_regions([(GOOD.original, GOOD.better)])
    assert word_fault("I am go to", LEARNER, wrong) is not None
    assert word_fault("go to school", LEARNER, wrong) == gates.SAID_WRONGLY
    assert word_fault("school", LEARNER, wrong) is None  # a word of the line the learner said right
    assert word_fault("commute", LEARNER, wrong) is None


def test_a_self_introduction_and_a_name_are_not_new_words():
    assert word_fault("My name is Minji", LEARNER) == gates.LEARNER_LINE  # most of "Hello, my name is Minji."
    assert word_fault("Minji", LEARNER, names=["Minji"]) == gates.NAME  # the profile's name
    assert gates.introduced_names(LEARNER) == {"minji"}  # no profile yet: their own words name them
    gated = gate_review([], ["My name is Minji", "Minji", "minji."], LEARNER, TUTOR)
    assert gated.new_words == [] and gated.dropped["word name"] == 3


def test_a_correction_that_keeps_the_error_is_dropped_and_a_real_one_kept():
    assert correction_fault(KEEPS_ERROR.original, KEEPS_ERROR.better, LEARNER) == gates.KEEPS_ERROR
    assert correction_fault(GOOD.original, GOOD.better, LEARNER) is None
    assert correction_fault(ERROR_LINE, "i am go to school yesterday!", LEARNER) == gates.SAME
    assert correction_fault(ERROR_LINE, "Last week my sister and I visited a museum together", LEARNER) == gates.FAR
    assert correction_fault("I am office worker", "I am an office worker", LEARNER) is None  # an inserted article


def test_the_tutors_line_is_not_the_learners_mistake():
    assert correction_fault(TUTORS_LINE.original, TUTORS_LINE.better, LEARNER, TUTOR) == gates.TUTOR_LINE
    assert correction_fault("I was at the moon", "I was on the moon", LEARNER, TUTOR) == gates.NOT_SAID


def test_the_review_keeps_only_what_passes(caplog):
    raw = {"corrections": [{"original": ERROR_LINE, "better": GOOD.better, "why": "past", "type": "tense"},
                           {"original": ERROR_LINE, "better": KEEPS_ERROR.better, "why": "", "type": "other"},
                           {"original": TUTORS_LINE.original, "better": TUTORS_LINE.better, "why": "",
                            "type": "other"}],
           "new_words": [ERROR_LINE, "My name is Minji", "Minji", "commute", "Commute", "professional",
                         "Seoul123", "\u0441\u043b\u043e\u0432\u043e"]}
    with caplog.at_level(logging.INFO, logger="tutor_app"):
        corrections, new_words = parse_review(raw, LEARNER, TUTOR, ["Minji"])
    assert [(c.original, c.better) for c in corrections] == [(GOOD.original, GOOD.better)]
    assert new_words == ["commute", "professional"]
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert "dropped 7 of 11" in logged  # counts and reasons only, never the words ("Commute" is a double)
    for text in ("Minji", "school", "Seoul", "friend", "professional"):
        assert text not in logged


def word(said: str, session: str = "c1") -> PracticeItem:
    return PracticeItem(f"w-{said}", WORD, said, session_id=session, card=schedule.new_card(T0))


def mistake(c: Correction, session: str = "c1") -> PracticeItem:
    return PracticeItem(f"m-{c.better}", MISTAKE, c.original, c.better, session_id=session, card=schedule.new_card(T0))


def test_saying_the_error_again_is_not_a_success():
    again = ["I am go to school yesterday."]
    assert judge(word(ERROR_LINE), again) is None  # a junk "word" earns no tick
    assert judge(mistake(KEEPS_ERROR), again) is None
    assert judge(mistake(KEEPS_ERROR), ["I am go to school yesterday with friend."]) is None
    assert judge(mistake(GOOD), ["I am go to school again."]).outcome == REPEATED
    assert judge(mistake(GOOD), ["I went to school on Monday."]).outcome == USED
    assert not judge(mistake(GOOD), ["I went to school and I am go to school."]).success


def test_a_plan_never_carries_a_junk_item(tmp_path):
    items = [word(ERROR_LINE), mistake(KEEPS_ERROR), word("I am go to school yesterday with my friend"),
             mistake(GOOD), word("commute")]
    planned = due_items(items, T0)
    assert [i.said for i in planned] == [GOOD.original, "commute"]
    text = plan_text(planned)
    assert "the new word \"I am go to school yesterday\"" not in text and "with friend" not in text


def _old_file(store: PracticeStore, items: list[PracticeItem], plans: dict[str, list[str]]) -> None:
    from tutor_app.practice.store import _row

    store.folder.mkdir(parents=True, exist_ok=True)
    store.path.write_text(json.dumps({"format": "tutor-app-practice", "version": 1, "profile": store.profile,
                                      "items": [_row(i) for i in items], "plans": plans}))


def test_opening_an_old_practice_file_removes_its_junk(tmp_path, caplog):
    junk = [word(ERROR_LINE), word("My name is Minji"), word("Minji"), mistake(KEEPS_ERROR), mistake(TUTORS_LINE)]
    good = [mistake(GOOD), word("commute")]
    asked: list[set[str]] = []

    def known(sessions: set[str]) -> Known:
        asked.append(sessions)
        return Known(frozenset({"Minji"}), {"c1": list(LEARNER)})

    store = PracticeStore(tmp_path, "minji", lambda: T0, known=known)
    _old_file(store, junk + good, {"c2": [i.id for i in junk + good]})
    with caplog.at_level(logging.INFO, logger="tutor_app"):
        assert [i.said for i in store.items()] == [GOOD.original, "commute"]
    assert asked == [{"c1"}]
    assert [i.id for i in store.planned("c2")] == [i.id for i in good]
    on_disk = json.loads(store.path.read_text())
    assert on_disk["version"] == 2 and len(on_disk["items"]) == 2  # rewritten: gone from disk too
    assert "5 of 7 items" in caplog.text and "Minji" not in caplog.text and "school" not in caplog.text
    store.items()
    assert asked == [{"c1"}]  # once: the file is of the current version now
    assert start_plan(store, "c3").count("- ") == 2


def test_without_memory_the_migration_drops_what_the_item_shows_and_leaves_the_rest_for_later(tmp_path):
    """A store opened outside the app (a memory deletion) cannot know the learner's name:
    it removes what the items themselves show, and the app's next open does the rest."""
    store = PracticeStore(tmp_path, "minji", lambda: T0)
    _old_file(store, [word(ERROR_LINE), mistake(KEEPS_ERROR), mistake(GOOD), word("commute"), word("Minji")], {})
    assert [i.said for i in store.items()] == [GOOD.original, "commute", "Minji"]
    assert json.loads(store.path.read_text())["version"] == 1
    app_store = PracticeStore(tmp_path, "minji", lambda: T0, known=lambda _: Known(frozenset({"Minji"})))
    assert [i.said for i in app_store.items()] == [GOOD.original, "commute"]


def test_the_store_keeps_only_items_that_pass(tmp_path):
    store = PracticeStore(tmp_path, "minji", lambda: T0)
    result = after_call(store, "c1", [GOOD, KEEPS_ERROR, TUTORS_LINE], [ERROR_LINE, "My name is Minji", "commute"],
                        LEARNER)
    assert result.added == 2
    assert sorted((i.kind, i.said) for i in store.items()) == [(MISTAKE, GOOD.original), (WORD, "commute")]


@pytest.mark.parametrize("said,better", [(GOOD.original, GOOD.better), ("I am office worker", "I am an office worker"),
                                         ("He make me happy", "He makes me happy")])
def test_good_items_pass_the_item_gate(said, better):
    assert item_fault(PracticeItem("x", MISTAKE, said, better)) is None
    assert item_fault(PracticeItem("w", WORD, "commute")) is None
    assert item_fault(PracticeItem("w", WORD, "well-known")) is None
    assert item_fault(PracticeItem("w", WORD, "don't mind")) is None
