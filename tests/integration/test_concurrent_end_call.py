"""One call end per session across processes (issue #33): two `end-call` of one session
at the same time take turns, and the second leaves a call the first finished as it is,
so nothing learned is stored twice. Real processes for the race, the real anthropic SDK
against the fake server; each round's call is seeded, and the memories read back, in this
process (from disk, what the processes left)."""
from __future__ import annotations

import json

import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process
from tests.processes import at_once

pytestmark = pytest.mark.slow

FACTS = {"name": "Dohyun", "occupation": "pharmacist", "interests": ["tennis"],
         "learning_goals": ["pass the IELTS exam"]}



def test_two_end_calls_of_one_session_at_once_store_each_fact_once(fake_anthropic):
    fake_anthropic.default = Reply(json.dumps(FACTS))  # every extraction and review gets it
    rounds = ["Hi, I'm Dohyun and I work as a pharmacist.\nI love tennis and I want to pass the IELTS exam.\n",
              "Hello again, it's Dohyun.\nToday I want to practise small talk for work.\n"]
    for round_, turns in enumerate(rounds):
        session = f"e{round_}"
        seeded = run_in_process("chat", "--session", session, input_text=turns)
        assert seeded.returncode == 0, seeded.stderr
        for out in at_once("--llm", "anthropic", "end-call", "--session", session, "--json"):
            assert out.returncode == 0, out.stderr
            assert json.loads(out.stdout)["extraction"] == "done"
        listed = run_in_process("memory", "list", "--json")
        assert listed.returncode == 0, listed.stderr
        texts = [json.loads(line)["text"] for line in listed.stdout.splitlines()]
        assert texts and len(texts) == len(set(texts)), texts
