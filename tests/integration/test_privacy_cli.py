"""Privacy end to end through the command line (issue #13): the PIN a learner said and the
tutor repeated is gone from every file of the data dir after `memory delete` / `memory
clear` and is not sent to the API again; logs never hold what was said, also with
--debug; a `memory delete` killed with -9 is finished by the next command.
Real processes, real LanceDB files, the real anthropic SDK against the fake server. A call
that only sets up what the commands under test work on is made, and what a test only reads
back (a list, the export) is read, in this process (tests/in_process.py): the same files."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys

import numpy as np
import pytest

from tests.fakes.anthropic_server import Reply
from tests.in_process import run_in_process
from tests.memory_fixtures import REPO, DimOnlyEmbedder, files_containing, secret_pattern

pytestmark = pytest.mark.slow

PIN_LINE = "My bank PIN is 4921, remember that."
TURNS = ["Hi, I'm Minji.", "I like jazz a lot.", PIN_LINE, "What should we talk about?"]
REPLIES = ["Nice to meet you, Minji!", "Jazz is wonderful, who do you listen to?",
           "Okay, I will remember that your PIN is 4921.", "Let's talk about your favourite musicians."]


_PIN = secret_pattern("4921")  # the PIN, not a hex id that happens to hold it


def has_pin(data: str | bytes) -> bool:
    return bool(_PIN.search(data.encode() if isinstance(data, str) else data))


def pin_files(root) -> list:
    """Every file under `root` (binary-safe: lance fragments, logs, exports) holding the PIN."""
    return files_containing(root, "4921")


def cli(*args: str, input_text: str | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "anthropic", *args], capture_output=True,
                          text=True, env=dict(os.environ, **(env or {})), input=input_text, timeout=300, cwd=REPO)


def _chat_with_pin(fake, *extra: str, env: dict | None = None, in_process: bool = False) -> None:
    fake.push(*[Reply(r) for r in REPLIES])
    args, said = (*extra, "chat", "--session", "p1", "--json"), "\n".join(TURNS) + "\n"
    out = run_in_process(*args, input_text=said) if in_process else cli(*args, input_text=said, env=env)
    assert out.returncode == 0, out.stderr
    assert [json.loads(x)["reply"] for x in out.stdout.splitlines()] == REPLIES


def _end_call(fake, *extra: str, extraction: str, env: dict | None = None, in_process: bool = False) -> None:
    review = {"corrections": [{"original": "My bank PIN is 4921", "better": "My bank's PIN is 4921",
                               "why": "a possessive"}], "new_words": ["musician"]}
    fake.push(*([Reply(extraction)] * 2), Reply(json.dumps(review)))
    args = (*extra, "end-call", "--session", "p1", "--json")
    out = run_in_process(*args) if in_process else cli(*args, env=env)
    assert out.returncode == 0, out.stderr


def test_the_pin_is_gone_everywhere_after_delete_and_clear(fake_anthropic, data_dir):
    _chat_with_pin(fake_anthropic, in_process=True)
    _end_call(fake_anthropic, extraction=json.dumps({"name": "Minji", "mentioned_facts": ["bank PIN is 4921"]}),
              in_process=True)
    listed = [json.loads(x) for x in run_in_process("memory", "list", "--json").stdout.splitlines()]
    pins = [m["id"] for m in listed if "4921" in m["text"]]
    assert pins, listed  # the trigger stored the line; extraction stored it again
    assert pin_files(data_dir)
    for mem_id in pins:
        out = cli("memory", "delete", mem_id)
        assert out.returncode == 0 and out.stdout.strip() == f"deleted {mem_id}", out.stderr

    assert pin_files(data_dir) == []  # lance fragments, old versions, logs, journal
    export = run_in_process("memory", "export")
    assert export.returncode == 0 and not has_pin(export.stdout)
    messages = [m["text"] for m in json.loads(export.stdout)["messages"]]
    assert messages == [TURNS[0], REPLIES[0], TURNS[1], REPLIES[1], TURNS[3], REPLIES[3]]

    fake_anthropic.push(Reply("Sure, tell me about your favourite band."))
    out = cli("chat", "--session", "p1", "--text", "Can we keep talking?")
    assert out.returncode == 0, out.stderr
    sent = json.dumps(fake_anthropic.last_request().body)
    assert not has_pin(sent) and "jazz" in sent.lower()  # the rest of the history is still there

    out = cli("memory", "clear")
    assert out.returncode == 0, out.stderr
    assert pin_files(data_dir) == []
    for needle in ("Minji", "jazz", "Jazz", "favourite band", "musician"):
        assert files_containing(data_dir, needle) == [], needle
    assert json.loads(run_in_process("memory", "export").stdout)["calls"] == []


def test_logs_never_hold_what_was_said_even_with_debug(fake_anthropic, data_dir):
    env = {"ANTHROPIC_LOG": "debug"}  # the SDK's own request logging, on purpose
    _chat_with_pin(fake_anthropic, "--debug", env=env)
    # A malformed extraction that quotes the learner: once logged in full, now its size only.
    _end_call(fake_anthropic, "--debug", extraction="Sure! The learner's bank PIN is 4921 and she likes jazz.",
              env=env)
    logs = data_dir / "logs"
    text = b"".join(p.read_bytes() for p in logs.rglob("*") if p.is_file())
    assert b"DEBUG" in text and b"malformed JSON" in text  # debug logging really was on
    assert not has_pin(text)
    for words in [*TURNS, *REPLIES, "jazz", "Jazz", "Minji"]:
        assert words.encode() not in text, words


def test_content_in_the_log_only_on_opt_in(fake_anthropic, data_dir):
    _chat_with_pin(fake_anthropic, in_process=True)  # the opt-in is the call end's
    _end_call(fake_anthropic, extraction="Sure! The learner's bank PIN is 4921.",
              env={"TUTOR_APP_LOG_CONTENT": "1"})
    assert files_containing(data_dir / "logs", "bank PIN is 4921")


def _profile_with_a_pin(data_dir, rows: int = 5000) -> str:
    from tutor_app.memory.storage.store import open_store

    store = open_store(data_dir / "memory.lancedb", DimOnlyEmbedder(), "default")
    vecs = np.random.default_rng(0).standard_normal((rows, 384)).astype(np.float32)
    # No filler holds the PIN's digits: LanceDB may store "memory number 14921" as the common
    # prefix plus "4921" alone (it failed a CI run), indistinguishable from the PIN itself.
    numbers = [n for n in range(10000, 20000) if "4921" not in str(n)][:rows]
    store.add_many([{"text": f"memory number {n}"} for n in numbers], vectors=vecs)
    store.add_message("k1", "user", PIN_LINE, embed=False)
    store.add_message("k1", "assistant", REPLIES[2], embed=False)
    mem = store.add(PIN_LINE, source="trigger", session_id="k1", vector=vecs[0])
    store.close()
    return mem.id


@pytest.mark.parametrize("stage", ["journal", "messages", "purge:memories"])
def test_kill_9_during_memory_delete_is_finished_by_the_next_command(data_dir, stage):
    mem_id = _profile_with_a_pin(data_dir)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TUTOR_APP_")}
    env.update(TUTOR_APP_DATA_DIR=str(data_dir), TUTOR_APP_TEST_PAUSE_AT=stage)
    proc = subprocess.Popen([sys.executable, "-m", "tutor_app", "memory", "delete", mem_id], cwd=REPO, env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        for line in proc.stderr:  # no sleeping: the child says when it stands at the stage
            if line.strip() == f"paused at {stage}":
                break
        else:
            pytest.fail(f"the delete never reached {stage}: {proc.wait()}")
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert pin_files(data_dir)  # the kill left it on disk
    if stage == "messages":  # the learner simply deletes again: finished, not "no memory with id"
        again = cli("memory", "delete", mem_id)
        assert again.returncode == 0, again.stderr
        assert again.stdout.strip() == f"deleted {mem_id} (finished an interrupted deletion)"
    else:  # any command that opens the store finishes the deletion
        listed = cli("memory", "list")
        assert listed.returncode == 0 and not has_pin(listed.stdout)
    assert pin_files(data_dir) == []
    assert len(run_in_process("memory", "list", "--json").stdout.splitlines()) == 5000
