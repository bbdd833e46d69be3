"""The local tutor model through llama.cpp: the bundled SmolLM2-135M GGUF, loaded as it
is, streamed, cancelled, asked for JSON under a schema; and the faults a learner can
meet (missing template, corrupt file, too big for the machine). Real model, CPU."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import wave
from pathlib import Path

import pytest

from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.errors import ModelMissingError
from tutor_app.llm.errors import LLMError
from tutor_app.llm.factory import resolve_gguf
from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions
from tutor_app.llm.offload import Hardware, LLMTooBigError
from tutor_app.paths import default_models_dir
from tutor_app.registry.manifest import ModelRegistry
from tutor_app.tutor import extract, review

pytestmark = pytest.mark.slow

SYSTEM = [("You are a friendly English tutor. Answer in one short sentence.", True), ("The learner is happy.", False)]
HI = [ChatMessage("user", "Hello! How are you today?")]
CALLS = json.loads((Path(extract.__file__).parents[1] / "bench" / "data" / "llm_calls.json").read_text())["calls"]


@pytest.fixture(scope="module")
def gguf() -> Path:
    return resolve_gguf("smollm2-135m-instruct", ModelRegistry.load(default_models_dir()))


@pytest.fixture(scope="module")
def model(gguf) -> LlamaChatModel:
    chat = LlamaChatModel(gguf, LlamaOptions(max_tokens=24, device="cpu"))
    chat.load()
    return chat


def test_streams_a_greedy_reply_loaded_from_the_gguf(model):
    first = list(model.stream(SYSTEM, HI))
    assert len(first) > 1 and all(isinstance(d, str) and d for d in first)
    assert "".join(first).strip()
    assert list(model.stream(SYSTEM, HI)) == first  # greedy: the same prompt, the same reply
    assert model.plan.device == "cpu" and model.plan.n_threads >= 1
    assert "CPU requested" in model.plan.reason


def test_cancel_stops_at_the_next_token_and_the_model_stays_usable(model):
    token = CancelToken()
    got = []
    for delta in model.stream(SYSTEM, [ChatMessage("user", "Tell me a long story about a cat.")], token):
        got.append(delta)
        token.cancel()
    assert len(got) == 1
    cancelled_first = CancelToken()
    cancelled_first.cancel()
    assert list(model.stream(SYSTEM, HI, cancelled_first)) == []
    assert list(model.stream(SYSTEM, HI))  # the lock was released: the next turn runs


def test_a_consumer_that_stops_early_ends_generation(model):
    stream = model.stream(SYSTEM, [ChatMessage("user", "Count from one to fifty.")])
    next(stream)
    stream.close()  # what the engine does after a barge-in or five sentences
    done = threading.Event()
    threading.Thread(target=lambda: (list(model.stream(SYSTEM, HI)), done.set()), daemon=True).start()
    assert done.wait(60)


def test_a_turn_and_the_call_end_extraction_at_once_do_not_collide(model):
    messages = _call(CALLS[0])
    system, request = extract.extraction_request(messages)
    alone_reply = list(model.stream(SYSTEM, HI))
    alone_json = model.complete_json(system, request, schema=extract.EXTRACTION_SCHEMA)
    results = {}
    threads = [threading.Thread(target=lambda: results.update(reply=list(model.stream(SYSTEM, HI)))),
               threading.Thread(target=lambda: results.update(json=model.complete_json(
                   system, request, schema=extract.EXTRACTION_SCHEMA)))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert results == {"reply": alone_reply, "json": alone_json}


@pytest.mark.parametrize("call", CALLS[:6], ids=[c["id"] for c in CALLS[:6]])
def test_json_under_the_schema_is_always_satisfied(model, call):
    messages = _call(call)
    system, request = extract.extraction_request(messages)
    _check(model.complete_json(system, request, schema=extract.EXTRACTION_SCHEMA), extract.EXTRACTION_SCHEMA)
    system, request = review.review_request(messages)
    _check(model.complete_json(system, request, schema=review.REVIEW_SCHEMA), review.REVIEW_SCHEMA)


def test_extraction_with_the_bundled_model_fills_the_profile(model):
    result = extract.extract_facts(model, _call(CALLS[1]))
    assert result.facts.name == "Joon" and "engineer" in result.facts.occupation
    assert any("cook" in i for i in result.facts.interests)
    assert any("meeting" in g for g in result.facts.learning_goals)


def test_a_model_without_a_chat_template_is_refused(tmp_path, gguf):
    plain = tmp_path / "base-model.gguf"
    plain.write_bytes(gguf.read_bytes().replace(b"tokenizer.chat_template", b"tokenizer.chat_templatX"))
    with pytest.raises(LLMError, match="has no chat template") as caught:
        LlamaChatModel(plain).load()
    assert "base-model.gguf" in str(caught.value) and "\n" not in str(caught.value)


def test_a_corrupt_model_file_is_one_clear_line(tmp_path, gguf):
    cut = tmp_path / "cut.gguf"
    with gguf.open("rb") as src:
        cut.write_bytes(src.read(2 << 20))  # the header is whole, the weights are not
    with pytest.raises(ModelMissingError) as caught:
        LlamaChatModel(cut, LlamaOptions(device="cpu")).load()
    assert "cut.gguf" in str(caught.value) and "tutor-app models install" in str(caught.value)
    garbage = tmp_path / "garbage.gguf"
    garbage.write_bytes(os.urandom(4096))
    with pytest.raises(ModelMissingError, match="not a GGUF file"):
        LlamaChatModel(garbage).load()
    with pytest.raises(ModelMissingError, match="is missing"):
        LlamaChatModel(tmp_path / "gone.gguf").load()


def test_a_model_too_big_for_the_free_memory_is_refused_before_loading(gguf):
    small_machine = Hardware(cuda_probe=lambda: (False, "no CUDA device found"),
                             gpu_build=lambda: (False, "CPU only"), free_vram_mb=lambda: None,
                             available_ram_mb=lambda: 64, cpu_threads=lambda: 1)
    chat = LlamaChatModel(gguf, LlamaOptions(smaller_model="qwen2.5-0.5b-instruct"), hardware=small_machine)
    with pytest.raises(LLMTooBigError, match=r"needs about \d+ MB of memory but only 64 MB is free; "
                                             r"choose a smaller model \(e\.g\. qwen2\.5-0\.5b-instruct\)"):
        chat.load()


def test_a_gpu_plan_on_a_cpu_build_still_loads(gguf):
    """The CUDA probe says yes (faked) but this llama.cpp has no GPU backend: it runs on the CPU."""
    claims_gpu = Hardware(cuda_probe=lambda: (True, "1 CUDA device(s)"),
                          gpu_build=lambda: (True, "llama.cpp built with GPU offload"),
                          free_vram_mb=lambda: 8000, available_ram_mb=lambda: 8000, cpu_threads=lambda: 1)
    chat = LlamaChatModel(gguf, LlamaOptions(max_tokens=4), hardware=claims_gpu)
    assert chat.inspect()[1].n_gpu_layers == -1
    assert "".join(chat.stream(SYSTEM, HI)).strip()


# -- the app, offline, end to end --------------------------------------------------------
def cli(*args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ANTHROPIC_")}
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", "local", *args],
                          capture_output=True, text=True, env=env, timeout=600)


def test_an_offline_call_with_the_local_model_fills_the_profile(data_dir):
    turns = [u for u, _ in CALLS[3]["turns"]]  # Daniel, a designer, photography, pronunciation
    args = ["chat", "--session", "off1", "--json"]
    for text in turns:
        args += ["--text", text]
    out = cli(*args)
    assert out.returncode == 0, out.stderr
    replies = [json.loads(line) for line in out.stdout.splitlines()]
    assert len(replies) == 4 and all(r["reply"].strip() for r in replies)
    assert all("first_token" in r["timings_ms"] for r in replies)
    end = cli("end-call", "--session", "off1", "--json")
    assert end.returncode == 0, end.stderr
    outcome = json.loads(end.stdout)
    assert outcome["extraction"] == "done"
    profile = outcome["profile"]
    assert profile["name"] == "Daniel" and "designer" in profile["occupation"]
    assert any("photograph" in i.lower() for i in profile["interests"])
    assert outcome["report"]["turns"] == 4
    # The small offline model's review is labelled as such (a short list is no perfect score),
    # and every correction it gives quotes what the learner really said.
    assert outcome["report"]["review_source"] == "local-model"
    said = " ".join(turns).lower()
    assert all(c["original"].lower().strip(".!? ") in said for c in outcome["report"]["corrections"])


def test_an_offline_spoken_turn_with_the_local_model(data_dir, shared_data, tmp_path):
    output = tmp_path / "reply.wav"
    out = cli("call", "--input", str(shared_data / "speech" / "whisper_jfk.flac"), "--output", str(output),
              "--session", "spoken", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert "ask not what your country" in result["transcript"].lower() and result["reply"].strip()
    with wave.open(str(output)) as w:
        assert w.getnframes() > w.getframerate() // 2


def test_doctor_says_where_the_local_model_runs_and_why(data_dir):
    out = cli("doctor", "--json")
    checks = [json.loads(line) for line in out.stdout.splitlines()]
    llm = [c for c in checks if c["area"] == "llm" and c["detail"].startswith("local model:")]
    assert len(llm) == 1 and llm[0]["ok"], checks
    assert re.search(r"via llama\.cpp on (CPU|GPU).*CPU thread\(s\): \S", llm[0]["detail"])


# -- helpers ------------------------------------------------------------------------------
def _call(call: dict) -> list[ChatMessage]:
    return [ChatMessage(role, text) for user, tutor in call["turns"] for role, text in (("user", user), ("assistant", tutor))]


def _check(value, schema) -> None:
    """A small JSON-schema check of what the schemas here use (type, required,
    additionalProperties, maxLength, maxItems, pattern)."""
    kind = schema["type"]
    if kind == "object":
        assert isinstance(value, dict) and set(value) == set(schema["required"]) == set(schema["properties"])
        for key, sub in schema["properties"].items():
            _check(value[key], sub)
    elif kind == "array":
        assert isinstance(value, list) and len(value) <= schema.get("maxItems", 10**6)
        for item in value:
            _check(item, schema["items"])
    else:
        assert isinstance(value, str) and len(value) <= schema.get("maxLength", 10**6)
        if "pattern" in schema:
            assert re.fullmatch(schema["pattern"].strip("^$"), value), value
