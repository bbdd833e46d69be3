"""The local-server backend against a real OpenAI-compatible server: llama-cpp-python's
`python -m llama_cpp.server` serving the bundled GGUF on 127.0.0.1. Streaming, schema
JSON, cancellation, and the faults: nothing listening, the server dying mid-reply, the
server refusing a request."""
from __future__ import annotations

import http.client
import json
import re
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.llm.errors import LLMRequestError, LLMStreamCutError, LLMUnavailableError
from tutor_app.llm.factory import load_chat_model, resolve_gguf
from tutor_app.llm.openai_server import OpenAIServerChatModel, ServerOptions
from tutor_app.paths import AppPaths, default_models_dir
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.settings import Settings
from tutor_app.tutor import extract

pytestmark = pytest.mark.slow

SYSTEM = "You are a friendly English tutor. Answer in one short sentence."
HI = [ChatMessage("user", "Hello! How are you today?")]
READY_TIMEOUT_S = 180


class LlamaServer:
    """`python -m llama_cpp.server` on a free port; ready once GET /v1/models answers."""

    def __init__(self, gguf: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self._log = log.open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--model_alias", "smollm2",
             "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "1024", "--n_threads", "1"],
            stdout=self._log, stderr=subprocess.STDOUT)
        self._wait_ready()

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_S
        pause = threading.Event()  # never set: a bounded wait between polls
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}")
            try:
                conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=2)
                conn.request("GET", "/v1/models")
                if conn.getresponse().status == 200:
                    conn.close()
                    return
                conn.close()
            except OSError:
                pass
            pause.wait(0.1)
        self.stop()
        raise RuntimeError(f"llama_cpp.server not ready after {READY_TIMEOUT_S} s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(30)
        self._log.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def gguf() -> Path:
    return resolve_gguf("smollm2-135m-instruct", ModelRegistry.load(default_models_dir()))


@pytest.fixture(scope="module")
def server(gguf, tmp_path_factory):
    running = LlamaServer(gguf, tmp_path_factory.mktemp("server") / "server.log")
    yield running
    running.stop()


def chat(url: str, **kwargs) -> OpenAIServerChatModel:
    return OpenAIServerChatModel(ServerOptions(base_url=url, **kwargs))


def test_streams_a_reply_from_the_first_listed_model(server):
    model = chat(server.url, max_tokens=24)
    deltas = list(model.stream(SYSTEM, HI))
    assert len(deltas) > 1 and "".join(deltas).strip()
    assert model.model_name() == "smollm2" and model.url == f"{server.url}/v1"
    assert list(model.stream(SYSTEM, HI)) == deltas  # temperature 0: the same reply


def test_json_under_the_schema_from_the_server(server):
    model = chat(server.url, model="smollm2")
    for call in json.loads((Path(extract.__file__).parents[1] / "bench" / "data" / "llm_calls.json")
                           .read_text())["calls"][:3]:
        messages = [ChatMessage(r, t) for u, a in call["turns"] for r, t in (("user", u), ("assistant", a))]
        system, request = extract.extraction_request(messages)
        value = model.complete_json(system, request, schema=extract.EXTRACTION_SCHEMA)
        assert set(value) == set(extract.EXTRACTION_SCHEMA["required"])
        assert all(isinstance(value[k], str) for k in ("name", "occupation"))
        for key in ("interests", "learning_goals", "preferences", "mentioned_facts"):
            assert isinstance(value[key], list) and len(value[key]) <= 3
            assert all(re.fullmatch(r"[A-Za-z][A-Za-z0-9 ,'-]{1,59}", item) for item in value[key])
    # llama-cpp-python's server takes json_object + schema, not OpenAI's json_schema form:
    # the backend found that out once and keeps using it.
    assert model._json_mode == "json_object_schema"


def test_cancel_closes_the_stream_and_the_server_goes_on(server):
    model = chat(server.url, max_tokens=200)
    token = CancelToken()
    got = []
    for delta in model.stream(SYSTEM, [ChatMessage("user", "Tell me a long story about a cat.")], token):
        got.append(delta)
        token.cancel()
    assert len(got) == 1
    assert "".join(chat(server.url, max_tokens=8).stream(SYSTEM, HI)).strip()


def test_nothing_listening_is_unavailable_and_the_bundled_model_answers(data_dir, gguf):
    url = f"http://127.0.0.1:{free_port()}"
    with pytest.raises(LLMUnavailableError, match=r"cannot reach the local server at .*: is it running\?"):
        list(chat(url).stream(SYSTEM, HI))
    settings = Settings(paths=AppPaths.resolve(data_dir))
    settings.llm.backend, settings.llm.local_server_url, settings.llm.max_tokens = "local", url, 16
    model = load_chat_model(settings, ModelRegistry.load(default_models_dir()))
    reply = "".join(model.stream(SYSTEM, HI))
    assert reply.strip() and model.last_backend.startswith("llama.cpp:")
    assert "is it running?" in model.last_fallback_reason


def test_a_server_dying_mid_reply_is_a_cut_with_the_text_so_far(gguf, tmp_path):
    dying = LlamaServer(gguf, tmp_path / "dying.log")
    try:
        stream = chat(dying.url, max_tokens=400).stream(
            SYSTEM, [ChatMessage("user", "Tell me a very long story about a cat and a dog.")])
        received = [next(stream)]
        dying.proc.kill()
        dying.proc.wait(30)
        with pytest.raises(LLMStreamCutError) as caught:
            for delta in stream:
                received.append(delta)
        assert caught.value.partial_text == "".join(received) and received[0]
        assert "cut off" in str(caught.value)
    finally:
        dying.stop()


def test_a_request_the_server_refuses_or_fails_mid_stream(server):
    too_long = [ChatMessage("user", "word " * 3000)]  # over the server's 1024-token context
    # Streamed, this server has already sent "200 OK" when it fails: the stream just ends.
    with pytest.raises(LLMUnavailableError, match="ended the reply early") as caught:
        list(chat(server.url).stream(SYSTEM, too_long))
    assert not isinstance(caught.value, LLMStreamCutError)  # no text yet: the fallback may answer
    with pytest.raises(LLMRequestError) as refused:
        chat(server.url).complete_json(SYSTEM, too_long)
    assert "refused the request (HTTP 400)" in str(refused.value) and "context length" in str(refused.value)
    with pytest.raises(LLMRequestError, match="refused the request"):
        chat(server.url + "/v9").complete_json(SYSTEM, HI)  # a wrong base path: 404
    assert "".join(chat(server.url, max_tokens=8).stream(SYSTEM, HI)).strip()  # and it goes on


def test_doctor_reports_the_server(server, data_dir):
    from tutor_app.llm.factory import describe_local

    settings = Settings(paths=AppPaths.resolve(data_dir))
    settings.llm.local_server_url = server.url
    ok, detail, _ = describe_local(settings, ModelRegistry.load(default_models_dir()))
    assert ok and detail == f"local model: server {server.url}/v1, model smollm2"
    settings.llm.local_server_url = f"http://127.0.0.1:{free_port()}"
    ok, detail, fix = describe_local(settings, ModelRegistry.load(default_models_dir()))
    assert not ok and "is it running?" in detail and "local_server_url" in fix
