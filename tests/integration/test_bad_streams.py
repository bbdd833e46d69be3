"""A local model server that sends a stream which cannot be parsed (issue #33): that is a
failed reply, not an empty one - warned, logged (no learner text), the bundled model
answers and both lines are in the transcript; a reply cut off mid-stream keeps both
lines, the reply as far as it went. And the HTTP client's own loggers, by the names the
installed client really uses, never put a URL or headers in the log. Real processes, a
stand-in server on 127.0.0.1, the real bundled GGUF, the real anthropic SDK; the stored
transcript is read back in this process, from disk (tests/in_process.py)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fakes.anthropic_server import Reply
from tests.fakes.openai_sse_server import GARBAGE, Script, SseStandIn, cut_after, delta
from tests.in_process import run_in_process
from tests.memory_fixtures import REPO
from tutor_app.core.types import ChatMessage
from tutor_app.llm.errors import LLMStreamCutError, LLMUnavailableError
from tutor_app.llm.openai_server import OpenAIServerChatModel, ServerOptions

pytestmark = pytest.mark.slow

SAID = "I went to the market yesterday with my sister."
SORRY = "Sorry, I didn't catch that. Could you say it again?"


def cli(*args: str, llm: str = "local") -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", llm, *args], capture_output=True, text=True,
                          env=dict(os.environ), timeout=300, cwd=REPO)


def _use_server(data_dir, url: str) -> None:
    config = data_dir / "config"
    config.mkdir(parents=True, exist_ok=True)
    (config / "settings.toml").write_text(f'[llm]\nlocal_server_url = "{url}"\nmax_tokens = 24\n', encoding="utf-8")


def _transcript(session: str) -> list[tuple[str, str]]:
    out = run_in_process("memory", "export", llm="local")
    assert out.returncode == 0, out.stderr
    return [(m["role"], m["text"]) for m in json.loads(out.stdout)["messages"] if m["session_id"] == session]


def _log(data_dir) -> str:
    return "".join(p.read_text(encoding="utf-8") for p in sorted((data_dir / "logs").glob("tutor-app.log*")))


def test_an_unparseable_event_is_a_failure_not_an_empty_reply():
    with SseStandIn() as server:
        model = OpenAIServerChatModel(ServerOptions(server.url, timeout_s=10))
        server.push(GARBAGE)
        with pytest.raises(LLMUnavailableError, match="sent a reply that cannot be read") as caught:
            list(model.stream("Be brief.", [ChatMessage("user", SAID)]))
        assert not isinstance(caught.value, LLMStreamCutError)  # nothing yet: the fallback may answer
        server.push(Script([delta("Nice. "), "{oops", "[DONE]"]))
        with pytest.raises(LLMStreamCutError) as cut:
            list(model.stream("Be brief.", [ChatMessage("user", SAID)]))
        assert cut.value.partial_text == "Nice. "


def test_garbage_from_the_local_server_is_answered_by_the_bundled_model(data_dir):
    with SseStandIn() as server:
        _use_server(data_dir, server.url)
        server.push(GARBAGE)
        out = cli("chat", "--session", "g1", "--text", SAID)
    assert out.returncode == 0, out.stderr
    reply = out.stdout.split("tutor: ", 1)[1].strip()
    assert reply and reply != SORRY  # the bundled model answered
    assert "sent a reply that cannot be read" in out.stderr  # the learner is told
    log = _log(data_dir)
    assert "WARNING tutor_app.llm.fallback" in log and "sent a reply that cannot be read" in log
    assert "market" not in log  # what was said never reaches the log
    assert _transcript("g1") == [("user", SAID), ("assistant", reply)]


def test_a_reply_cut_off_mid_stream_keeps_both_lines(data_dir):
    with SseStandIn() as server:
        _use_server(data_dir, server.url)
        server.push(cut_after("That sounds lovely. What did you"))
        out = cli("chat", "--session", "c1", "--text", SAID)
    assert out.returncode == 0, out.stderr
    assert "the reply was cut off" in out.stderr
    assert _transcript("c1") == [("user", SAID), ("assistant", "That sounds lovely.")]  # as far as it was said


def test_the_http_client_logs_no_url_or_headers_even_with_debug(fake_anthropic, data_dir):
    fake_anthropic.push(Reply("Hello! Nice to meet you."))
    out = cli("--debug", "chat", "--session", "h1", "--text", "Hello, I am Minji.", llm="anthropic")
    assert out.returncode == 0, out.stderr
    log = _log(data_dir)
    assert "Nice to meet you" not in log and "Minji" not in log
    for leak in ("127.0.0.1", "/v1/messages", "HTTP Request", "x-api-key", "send_request_headers", "httpx2", "httpcore2"):
        assert leak not in log and leak not in out.stderr, leak
