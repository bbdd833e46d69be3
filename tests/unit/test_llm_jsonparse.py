"""Robust JSON-object extraction from model replies (pure)."""
from __future__ import annotations

import pytest

from tutor_app.llm.jsonparse import JSONExtractError, extract_json_object


@pytest.mark.parametrize(
    "text, expected",
    [
        ('{"name": "Minji"}', {"name": "Minji"}),
        ('  \n{"a": [1, 2]}\n', {"a": [1, 2]}),
        ('```json\n{"name": "Minji", "interests": ["hiking"]}\n```', {"name": "Minji", "interests": ["hiking"]}),
        ('```\n{"a": 1}\n```', {"a": 1}),
        ('Sure! Here is the JSON:\n```json\n{"a": 1}\n```\nLet me know.', {"a": 1}),
        ('Here you go: {"job": "nurse", "goals": ["interview"]} Hope it helps!', {"job": "nurse", "goals": ["interview"]}),
        ('{"outer": {"inner": {"x": "}"}}, "y": 2}', {"outer": {"inner": {"x": "}"}}, "y": 2}),
        ('{"a": 1, "b": [1, 2,],}', {"a": 1, "b": [1, 2]}),
        ("{'name': 'Minji', 'ok': True, 'none': None}", {"name": "Minji", "ok": True, "none": None}),
        ("{\u201cname\u201d: \u201cJun\u201d}", {"name": "Jun"}),
        ('I think {not json} but then {"real": true}', {"real": True}),
        ('```json\n{"cut": "by max_tokens"}', {"cut": "by max_tokens"}),
        ('{"text": "she said \\"hi\\" {and left}"}', {"text": 'she said "hi" {and left}'}),
        ('{"name": "Minji"} and also {"name": "other"}', {"name": "Minji"}),
    ],
)
def test_extracts_the_object(text, expected):
    assert extract_json_object(text) == expected


def test_wrong_field_types_are_left_to_the_caller():
    assert extract_json_object('{"name": 5, "interests": "music"}') == {"name": 5, "interests": "music"}


@pytest.mark.parametrize(
    "text",
    ["", "   ", "no json here", "[1, 2, 3]", '"just a string"', "{broken: json", '{"a": 1', "42"],
)
def test_no_object_raises(text):
    with pytest.raises(JSONExtractError):
        extract_json_object(text)


def test_error_message_previews_the_reply():
    with pytest.raises(JSONExtractError, match="sorry, I cannot"):
        extract_json_object("sorry, I cannot do that")


def test_never_evaluates_code():
    with pytest.raises(JSONExtractError):
        extract_json_object("{'a': __import__('os').getcwd()}")


def test_hostile_text_is_bounded():
    with pytest.raises(JSONExtractError):
        extract_json_object("{" * 20000)
