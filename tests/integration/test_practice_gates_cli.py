"""The practice gates through the command line, as a learner meets them: the call-end
review of any model (the bundled offline SmolLM2-135M, or Claude answering junk) never
files the learner's own wrong line, self-introduction or name as a new word, nor a
"correction" that keeps the error or quotes the tutor; saying the error again is no
success; the next call's plan holds none of it; and a practice file written before the
gates loses its junk the first time it is opened. The call ends and the next call are real
processes; the call under review is made, and the practice lists are read, in this process
(tests/in_process.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process
from tutor_app.practice.items import words

pytestmark = pytest.mark.slow

FIRST = "Hello, my name is Minji. I am office worker in Seoul."
SECOND = "I am go to school yesterday with my friend."
ERROR = "I am go to school yesterday"
GOOD = {"original": ERROR, "better": "I went to school yesterday", "why": "a past event", "type": "tense"}
KEEPS_ERROR = {"original": ERROR, "better": "I am go to school yesterday with friend", "why": "", "type": "other"}
TUTOR_SAYS = "I'm a professional office worker in Seoul."
TUTORS_LINE = {"original": "I'm a professional office worker in Seoul", "better": "I am a professional office worker",
               "why": "", "type": "other"}


def cli(data_dir, *args: str, llm: str = "anthropic") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--data-dir", str(data_dir), "--llm", llm, *args],
                          capture_output=True, text=True, env=dict(os.environ), timeout=600)


def practice_items(data_dir, llm: str = "anthropic") -> list[dict]:
    out = run_in_process("--data-dir", str(data_dir), "practice", "list", "--json", llm=llm)
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def norm(text: str) -> str:
    return " ".join(words(text))


def is_learners_wrong_line(item: dict) -> bool:
    said = norm(item["said"])
    lines = {norm(FIRST), norm(SECOND), *(norm(s) for s in FIRST.split(". "))}
    return said in lines or (item["kind"] == "word" and norm(ERROR) in said)


def test_offline_end_call_files_no_item_made_of_the_learners_own_line(data_dir):
    """The Done-when line of the offline call end: a fresh data dir, the bundled model."""
    data = data_dir
    chat = run_in_process("--data-dir", str(data), "chat", "--session", "s", "--text", FIRST, "--text", SECOND,
                          llm="local")  # the call under review, made in this process
    assert chat.returncode == 0, chat.stderr
    end = cli(data, "end-call", "--session", "s", "--json", llm="local")
    assert end.returncode == 0, end.stderr
    report = json.loads(end.stdout)["report"]
    items = practice_items(data, llm="local")
    assert not [i for i in items if is_learners_wrong_line(i)]
    assert not [i for i in items if i["kind"] == "word" and "minji" in norm(i["said"])]
    for item in items:
        if item["kind"] == "mistake":  # a span of the learner's own line, fixed nearby
            assert norm(item["said"]) in norm(FIRST) or norm(item["said"]) in norm(SECOND)
            assert norm(item["said"]) != norm(item["better"])
    assert not [w for w in report["new_words"] if norm(ERROR) in norm(w) or "minji" in norm(w)]


def system_text(request) -> str:
    system = request.system
    return system if isinstance(system, str) else " ".join(part["text"] for part in system)


def test_claudes_junk_review_reaches_no_item_no_tick_and_no_plan(fake_anthropic, data_dir):
    fake_anthropic.push(Reply(TUTOR_SAYS), Reply("Oh, where did you go?"))
    first = run_in_process("--data-dir", str(data_dir), "chat", "--session", "p1", "--text", FIRST, "--text",
                           SECOND)  # the call under review, made in this process
    assert first.returncode == 0, first.stderr
    junk = {"corrections": [GOOD, KEEPS_ERROR, TUTORS_LINE],
            "new_words": [ERROR, "My name is Minji", "Minji", "commute"]}
    fake_anthropic.push(Reply(json.dumps({"name": "Minji"})), Reply(json.dumps(junk)))
    end = cli(data_dir, "end-call", "--session", "p1", "--json")
    assert end.returncode == 0, end.stderr
    outcome = json.loads(end.stdout)
    assert outcome["practice"]["added"] == 2
    assert [c["better"] for c in outcome["report"]["corrections"]] == [GOOD["better"]]
    assert outcome["report"]["new_words"] == ["commute"]
    items = practice_items(data_dir)
    assert sorted((i["kind"], i["said"]) for i in items) == [("mistake", ERROR), ("word", "commute")]

    # The next call: the plan holds the real mistake and word only; saying the error
    # again is a repeat, not a success.
    fake_anthropic.push(Reply("And today?"))
    sent = len(fake_anthropic.requests)
    second = cli(data_dir, "chat", "--session", "p2", "--text", "I am go to school today.")
    assert second.returncode == 0, second.stderr
    system = system_text(fake_anthropic.requests[sent])
    assert "Practice plan" in system and '"i went to"' in system and '"commute"' in system
    plan = [line for line in system.splitlines() if line.startswith("- a chance")]
    assert len(plan) == 2 and plan[1].startswith('- a chance to use the new word "commute"')
    assert not [line for line in plan if "Minji" in line or "with friend" in line or "professional" in line]
    fake_anthropic.default = Reply(json.dumps({"corrections": [], "new_words": []}))
    assert cli(data_dir, "end-call", "--session", "p2").returncode == 0
    reviews = {i["said"]: [r["outcome"] for r in i["reviews"]] for i in practice_items(data_dir)}
    assert reviews == {ERROR: ["repeated"], "commute": []}

    # A practice file from before the gates (version 1) holding the junk of the old
    # review: the first open removes it, using the profile's name and the call's lines.
    path = next((data_dir / "practice").glob("*.json"))
    raw = json.loads(path.read_text())
    template = dict(raw["items"][0], reviews=[], session_id="p1")
    old = [dict(template, id=f"old{n}", kind="word", said=said, better="")
           for n, said in enumerate([ERROR, "My name is Minji", "Minji"])]
    old += [dict(template, id="old3", kind="mistake", said=KEEPS_ERROR["original"], better=KEEPS_ERROR["better"]),
            dict(template, id="old4", kind="mistake", said=TUTORS_LINE["original"], better=TUTORS_LINE["better"])]
    raw["items"] += old
    raw["version"] = 1
    raw["plans"]["p3"] = [i["id"] for i in raw["items"]]
    path.write_text(json.dumps(raw))
    assert sorted(i["said"] for i in practice_items(data_dir)) == sorted([ERROR, "commute"])
    kept = json.loads(path.read_text())
    assert kept["version"] == 2 and not [i for i in kept["items"] if i["id"].startswith("old")]
    assert not [x for x in kept["plans"]["p3"] if x.startswith("old")]
