"""The offline tutor (the bundled SmolLM2-135M through llama.cpp, no API key) never says
the learner's line back as its own, nor its own last reply (issue 29): the chat that
showed it, through the command line as a learner runs it. Real model, CPU."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

LINES = ["Hello, my name is Minji. I am office worker in Seoul.", "I am go to school yesterday with my friend.",
         "What is my name?", "My sister like coffee very much."]
# The learner's name or facts in the tutor's mouth, or the learner's words as its own.
PARROT = re.compile(r"\b(?:my name is minji|i'm minji|i am minji|(?:i am|i'm)(?: a| an)?(?: \w+)? office worker"
                    r"|i am go to school|what is my name)\b", re.IGNORECASE)


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def longest_shared_run(a: list[str], b: list[str]) -> int:
    best = 0
    for i in range(len(a)):
        for j in range(len(b)):
            k = 0
            while i + k < len(a) and j + k < len(b) and a[i + k] == b[j + k]:
                k += 1
            best = max(best, k)
    return best


def test_the_local_tutor_does_not_parrot_the_learner(data_dir):
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "local", "chat", "--json",
                          *[arg for line in LINES for arg in ("--text", line)]],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    replies = [json.loads(line)["reply"] for line in out.stdout.splitlines()]
    assert len(replies) == len(LINES) and all(r.strip() for r in replies)
    for turn, reply in enumerate(replies):
        assert not PARROT.search(reply), (turn, reply)
        for line in LINES[: turn + 1]:
            # the learner's line said back unchanged (a recast changes it and says "you")
            assert longest_shared_run(words(reply), words(line)) < max(5, len(words(line))), (turn, reply)
        for earlier in replies[:turn]:
            assert longest_shared_run(words(reply), words(earlier)) < 6, (turn, reply, earlier)
