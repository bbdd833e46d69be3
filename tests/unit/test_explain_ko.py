"""Corrections explained in Korean (tutor/explain_ko.py, tutor/review.py): the review asks
for a Korean line only when the learner wants it; a model's line is kept only when it is
short Korean text; otherwise (and with a small offline model, whose schema has no place
for it) the built-in line for the kind of mistake, with the learner's own change."""
from __future__ import annotations

import pytest

from tutor_app.core.types import ChatMessage
from tutor_app.tutor import review
from tutor_app.tutor.explain_ko import BUILT_IN, built_in, korean_fault
from tutor_app.tutor.report import CallReport, Correction, build_report

LINES = ["Yesterday I go to the hospital.", "My sister like coffee.", "I have two book.", "I ate a apple.",
         "I am interested on music.", "I bought the car new."]


@pytest.mark.parametrize("original, better, kind, expected", [
    ("Yesterday I go to the hospital", "Yesterday I went to the hospital", "tense", "past"),
    ("Tomorrow I go to Busan", "Tomorrow I will go to Busan", "tense", "future"),
    ("My sister like coffee", "My sister likes coffee", "agreement", "third"),
    ("I have two book", "I have two books", "agreement", "plural"),
    ("They was happy", "They were happy", "agreement", "agreement"),
    ("I ate a apple", "I ate an apple", "article", "a-an"),
    ("I went to hospital", "I went to the hospital", "article", "article"),
    ("I am interested on music", "I am interested in music", "preposition", "preposition"),
    ("I bought the car new", "I bought the new car", "word order", "word order"),
    ("I did a mistake", "I made a mistake", "word choice", "word choice"),
    ("It was good", "It was great", "nonsense", "other"),
    ("I have went there yesterday", "I went there yesterday", "tense", "perfect"),
    ("I am interesting in music", "I am interested in music", "word choice", "ing-ed"),
    ("I was boring at the party", "I was bored at the party", "other", "ing-ed"),
    ("I working yesterday", "I worked yesterday", "word choice", "word choice"),
])
def test_built_in_explanations_by_kind(original, better, kind, expected):
    line = built_in(original, better, kind)
    assert line.startswith(BUILT_IN[expected]) and line.endswith(".")
    assert korean_fault(line) is None  # the built-in lines pass the gate a model's must pass


def test_the_learners_own_change_is_shown():
    assert built_in("Yesterday I go to the hospital", "Yesterday I went to the hospital", "tense").endswith(
        ": go → went.")
    assert built_in("I went to hospital", "I went to the hospital", "article").endswith(": + the.")
    # Changed in two places ("me" moved, "to" added): no misleading "me → to me".
    assert built_in("She explained me the rules", "She explained the rules to me", "word order") == (
        BUILT_IN["word order"] + ".")


@pytest.mark.parametrize("text, fault", [
    ("과거의 일이라 went를 써요.", None),
    ("", "empty"),
    ("Past tense: use went.", "not-korean"),
    ("go → went (과거)", "not-korean"),
    ("과거형을 써야 해요. " * 12, "too-long"),
    ("Use the past tense (과거형) here.", "not-korean"),
    ('{"why_ko": "과거형"}', "junk"),
    ("과거형을 써요\n두 번째 줄", "junk"),
])
def test_the_gate_on_a_models_korean(text, fault):
    assert korean_fault(text) == fault


def test_the_review_asks_for_korean_only_when_on():
    messages = [ChatMessage("user", LINES[0]), ChatMessage("assistant", "Oh, you went to the hospital?")]
    plain, _ = review.review_request(messages)
    korean, _ = review.review_request(messages, korean=True)
    assert "why_ko" not in plain and "why_ko" in korean and korean.startswith(plain)
    assert "why_ko" not in str(review.REVIEW_SCHEMA)  # a small local model is never asked to write Korean


def test_parse_review_keeps_good_korean_and_replaces_the_rest():
    raw = {"corrections": [
        {"original": LINES[0].rstrip("."), "better": "Yesterday I went to the hospital", "why": "a past event",
         "type": "tense", "why_ko": "어제 일이라서 과거형 went를 써요."},
        {"original": "My sister like coffee", "better": "My sister likes coffee", "why": "she -> likes",
         "type": "agreement", "why_ko": "Use likes with she."},
        {"original": "I have two book", "better": "I have two books", "why": "plural", "type": "agreement"},
    ], "new_words": []}
    corrections, _ = review.parse_review(raw, LINES, korean=True)
    assert [c.why_ko for c in corrections] == [
        "어제 일이라서 과거형 went를 써요.",
        BUILT_IN["third"] + ": like → likes.",  # English only: replaced
        BUILT_IN["plural"] + ": book → books.",  # none given (a small model's review): built in
    ]
    assert [c.why for c in corrections] == ["a past event", "she -> likes", "plural"]  # the English stays
    off, _ = review.parse_review(raw, LINES)
    assert all(c.why_ko == "" for c in off)


def test_the_report_keeps_both_and_reads_old_reports():
    kept = Correction("I have two book", "I have two books", "plural", "agreement", "복수형이에요.")
    report = build_report("s1", 0.0, 60.0, [], [kept], [])
    again = CallReport.from_dict(report.to_dict())
    assert again.corrections[0].why == "plural" and again.corrections[0].why_ko == "복수형이에요."
    old = dict(report.to_dict(), corrections=[{"original": "a", "better": "b", "why": "c", "type": "other"}])
    assert CallReport.from_dict(old).corrections[0].why_ko == ""
