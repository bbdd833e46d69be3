"""The learning loop through the command line, as a learner lives it: a mistake in one
call is kept and due; the next call's tutor gets it as a quiet plan (the recorded request
of the fake Claude); using the better form then counts as a successful review. The
commands under test are real processes; the call the deletions work on is made, and what a
test only reads back (the lists, the export) is read, in this process (tests/in_process.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process

pytestmark = pytest.mark.slow

MISTAKE = {"original": "Yesterday I go to the hospital", "better": "Yesterday I went to the hospital",
           "why": "a past event", "type": "tense"}


def cli(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "anthropic", *args],
                          capture_output=True, text=True, env=dict(os.environ), input=input_text, timeout=300)


def practice_items() -> list[dict]:
    out = run_in_process("practice", "list", "--json")
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def system_text(request) -> str:
    system = request.system
    return system if isinstance(system, str) else " ".join(part["text"] for part in system)


def test_a_mistake_comes_back_in_the_next_call_and_a_correct_use_counts(fake_anthropic):
    fake_anthropic.push(Reply("Hi Minji!"), Reply("Oh no, what happened?"), Reply("I'm sorry to hear that."))
    first = cli("chat", "--session", "p1",
                input_text="Hi, I'm Minji.\nYesterday I go to the hospital.\nI was very tired.\n")
    assert first.returncode == 0, first.stderr
    fake_anthropic.push(Reply(json.dumps({"name": "Minji"})),
                        Reply(json.dumps({"corrections": [MISTAKE], "new_words": ["exhausted"]})))
    end = cli("end-call", "--session", "p1", "--json")
    assert end.returncode == 0, end.stderr
    assert json.loads(end.stdout)["practice"]["added"] == 2
    items = {i["kind"]: i for i in practice_items()}
    assert items["mistake"]["said"] == MISTAKE["original"] and items["mistake"]["type"] == "tense"
    assert items["mistake"]["session_id"] == "p1" and items["mistake"]["due_now"]
    assert items["word"]["said"] == "exhausted"

    # The next call: the tutor is quietly asked to give the learner a chance to use them.
    fake_anthropic.push(Reply("How nice! Who did you go with?"))
    sent = len(fake_anthropic.requests)
    second = cli("chat", "--session", "p2", "--text", "Last weekend I went to the beach.")
    assert second.returncode == 0, second.stderr
    system = system_text(fake_anthropic.requests[sent])
    assert "Practice plan" in system and '"i went to"' in system and '"exhausted"' in system
    fake_anthropic.default = Reply(json.dumps({"corrections": [], "new_words": []}))
    assert cli("end-call", "--session", "p2").returncode == 0
    items = {i["kind"]: i for i in practice_items()}
    assert [r["outcome"] for r in items["mistake"]["reviews"]] == ["used"]
    assert not items["mistake"]["due_now"]  # it comes back later now
    assert items["word"]["reviews"] == [] and items["word"]["due_now"]  # not used yet: still due

    exported = json.loads(run_in_process("memory", "export").stdout)["practice"]
    assert sorted(i["kind"] for i in exported) == ["mistake", "word"]  # the export holds them too

    # Deleting an item is for real, and one bad id is one clear line.
    gone = cli("practice", "delete", items["mistake"]["id"])
    assert gone.returncode == 0, gone.stderr
    assert [i["kind"] for i in practice_items()] == ["word"]
    missing = run_in_process("practice", "delete", "nope")  # nothing changes: the same parser and handler
    assert missing.returncode == 1 and "no practice item with id 'nope'" in missing.stderr


def test_deleting_a_memory_takes_the_practice_items_that_quote_it(fake_anthropic, data_dir):
    """A mistake in a line the learner later deletes (through its memory) is not kept in
    the practice file either; other items stay; `memory clear` takes them all."""
    said = "Please remember that my doctor name is Dr. Kwon."
    fake_anthropic.push(Reply("I will remember."), Reply("Nice!"), Reply("Good."))
    # The call the deletions work on: made in this process (the first test runs it for real).
    out = run_in_process("chat", "--session", "d1", input_text=f"{said}\nI like jazz.\nI play the piano.\n")
    assert out.returncode == 0, out.stderr
    review = {"corrections": [{"original": "my doctor name is Dr. Kwon", "better": "my doctor's name is Dr. Kwon",
                               "why": "possessive", "type": "other"}], "new_words": ["pianist"]}
    fake_anthropic.push(Reply(json.dumps({"name": ""})), Reply(json.dumps(review)))
    assert run_in_process("end-call", "--session", "d1").returncode == 0
    assert "Kwon" in run_in_process("practice", "list").stdout
    memories = [json.loads(x) for x in run_in_process("memory", "list", "--json").stdout.splitlines()]
    for memory in memories:
        if "Kwon" in memory["text"]:
            assert cli("memory", "delete", memory["id"]).returncode == 0
    assert [i["said"] for i in practice_items()] == ["pianist"]
    assert [p for p in data_dir.rglob("*") if p.is_file() and b"Kwon" in p.read_bytes()] == []
    assert cli("memory", "clear").returncode == 0
    assert practice_items() == []
    assert [p for p in data_dir.rglob("*") if p.is_file() and b"pianist" in p.read_bytes()] == []
