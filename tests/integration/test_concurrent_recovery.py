"""Two starts recovering one killed call (issue #33): after an `end-call` killed with -9
during its extraction, two `chat` processes started at the same time both find the call
unfinished; one call end runs at a time per data folder and the second finds it done, so
nothing learned is stored twice. Real processes for the kill and the race, two rounds (the
second with the first's facts already stored), the real anthropic SDK against the fake
server; each round's call is seeded in this process (the processes read it from disk)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import lancedb
import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process
from tests.memory_fixtures import REPO
from tests.processes import at_once

pytestmark = pytest.mark.slow

FACTS = {"name": "Dohyun", "occupation": "pharmacist", "interests": ["tennis"],
         "learning_goals": ["pass the IELTS exam"]}



def test_two_starts_recovering_one_killed_call_store_each_fact_once(fake_anthropic, data_dir):
    for round_ in range(2):
        session = f"k{round_}"
        fake_anthropic.default = Reply("Nice to hear that!")
        turns = f"Hi, I'm Dohyun and I work as a pharmacist.\nThis is call number {round_ + 1} this week.\n"
        seeded = run_in_process("chat", "--session", session, input_text=turns)
        assert seeded.returncode == 0, seeded.stderr
        fake_anthropic.push(Reply("{}", headers_delay=120))  # the extraction hangs; end-call dies waiting
        sent = len(fake_anthropic.requests)
        proc = subprocess.Popen([sys.executable, "-m", "tutor_app", "--llm", "anthropic", "end-call", "--session",
                                 session], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                env=dict(os.environ), cwd=REPO)
        try:
            assert fake_anthropic.wait_requests(sent + 1)
        finally:
            proc.send_signal(signal.SIGKILL)
            proc.wait()

        fake_anthropic.default = Reply(json.dumps(FACTS))  # every later request: turns, extraction, review
        for out in at_once("--llm", "anthropic", "chat", "--session", f"other{round_}", "--text", "Good morning!"):
            assert out.returncode == 0, out.stderr
            assert "Traceback" not in out.stderr and "failed" not in out.stderr, out.stderr
        db = lancedb.connect(str(data_dir / "memory.lancedb"))
        texts = db.open_table("memories").to_arrow().column("text").to_pylist()
        assert texts and len(texts) == len(set(texts)), texts  # no fact twice
        calls = db.open_table("calls").to_arrow().to_pylist()
        assert [c["extracted"] for c in calls if c["session_id"] == session] == [True]
