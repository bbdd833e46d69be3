"""One call end per session across processes (issue #33): two `end-call` of one session
at the same time take turns, and the second leaves a call the first finished as it is,
so nothing learned is stored twice. Real processes, the real anthropic SDK against the
fake server."""
from __future__ import annotations

import json

import pytest

from tests.fakes.anthropic_server import Reply
from tests.processes import at_once
from tests.processes import cloud_cli as cli

pytestmark = pytest.mark.slow

FACTS = {"name": "Dohyun", "occupation": "pharmacist", "interests": ["tennis"],
         "learning_goals": ["pass the IELTS exam"]}



def test_two_end_calls_of_one_session_at_once_store_each_fact_once(fake_anthropic):
    fake_anthropic.default = Reply(json.dumps(FACTS))  # every extraction and review gets it
    rounds = ["Hi, I'm Dohyun and I work as a pharmacist.\nI love tennis and I want to pass the IELTS exam.\n",
              "Hello again, it's Dohyun.\nToday I want to practise small talk for work.\n"]
    for round_, turns in enumerate(rounds):
        session = f"e{round_}"
        assert cli("chat", "--session", session, input_text=turns).returncode == 0
        for out in at_once("--llm", "anthropic", "end-call", "--session", session, "--json"):
            assert out.returncode == 0, out.stderr
            assert json.loads(out.stdout)["extraction"] == "done"
        listed = cli("memory", "list", "--json")
        texts = [json.loads(line)["text"] for line in listed.stdout.splitlines()]
        assert texts and len(texts) == len(set(texts)), texts
