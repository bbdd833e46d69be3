"""The tutor through the command line, as other tools drive it: `chat --json`,
`end-call --json`, `call --input/--output --json` (real models, fake Claude)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import wave

import pytest

from tests.fakes.anthropic_server import Reply

pytestmark = pytest.mark.slow


def cli(*args: str, input_text: str | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "anthropic", *args],
                          capture_output=True, text=True, env=dict(os.environ), input=input_text, timeout=300)


def test_chat_json_contract_then_end_call(fake_anthropic):
    fake_anthropic.push(Reply("Nice to meet you, Minji! What do you do?"), Reply("A nurse, great."),
                        Reply("That sounds tiring."), Reply("Good luck!"))
    out = cli("chat", "--session", "c1", "--json", input_text=(
        "Hi, I'm Minji.\nI work as a nurse.\nI'm so tired after night shifts.\nRemember my exam is on May 3.\n"))
    assert out.returncode == 0, out.stderr
    turns = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(turns) == 4
    for t in turns:
        assert {"user_text", "reply", "emotion", "recalled", "stored", "guardrail", "timings_ms"} <= set(t)
        assert len(t["emotion"]) == 3 and all({"label", "score"} == set(e) for e in t["emotion"])
        assert all({"id", "text", "score", "reason"} <= set(r) for r in t["recalled"])
    assert turns[0]["reply"] == "Nice to meet you, Minji! What do you do?"
    assert turns[3]["stored"]  # the save trigger
    fake_anthropic.push(Reply(json.dumps({"name": "Minji", "occupation": "nurse"})),
                        Reply(json.dumps({"corrections": [], "new_words": ["exhausted"]})))
    end = cli("end-call", "--session", "c1", "--json")
    assert end.returncode == 0, end.stderr
    outcome = json.loads(end.stdout)
    assert outcome["extracted"]["name"] == "Minji" and outcome["profile"]["occupation"] == "nurse"
    assert outcome["report"]["turns"] == 4


def test_end_call_for_an_unknown_session_is_one_line(fake_anthropic):
    out = cli("end-call", "--session", "nope")
    assert out.returncode == 1 and "no call with session 'nope'" in out.stderr
    assert "Traceback" not in out.stderr


def test_spoken_turn_from_a_file(fake_anthropic, shared_data, tmp_path):
    fake_anthropic.push(Reply("Those are famous words from President Kennedy."))
    output = tmp_path / "reply.wav"
    out = cli("call", "--input", str(shared_data / "speech" / "whisper_jfk.flac"), "--output", str(output),
              "--session", "f1", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert "ask not what your country can do for you" in result["transcript"].lower()
    assert result["reply"] == "Those are famous words from President Kennedy."
    with wave.open(str(output)) as w:
        assert w.getnframes() > w.getframerate()  # more than a second of speech
    assert "stt" in result["timings_ms"] and "tts" in result["timings_ms"]


def test_call_with_a_bad_file_stores_nothing(fake_anthropic, tmp_path):
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not audio at all")
    out = cli("call", "--input", str(bad), "--output", str(tmp_path / "o.wav"), "--session", "b1")
    assert out.returncode == 1 and len(out.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "o.wav").exists() and fake_anthropic.requests == []
