"""A Korean learner through the command line (issue 32): "출장은 영어로 뭐예요?" reaches Claude (the
local stand-in server) with the help rule; offline the built-in help answers it without
the model and keeps nothing of it; corrections explained in Korean reach the report."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.fakes.anthropic_server import Reply
from tutor_app.core.sentences import split_stream
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.tutor.korean_help import PROMPT_RULE
from tutor_app.tutor.parrot import ParrotCheck

pytestmark = pytest.mark.slow

ASK = "출장은 영어로 뭐예요?"


def cli(llm: str, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if llm == "local":
        env = {k: v for k, v in env.items() if not k.startswith("ANTHROPIC_")}
    return subprocess.run([sys.executable, "-m", "tutor_app", "--llm", llm, *args],
                          capture_output=True, text=True, env=env, timeout=300)


def system_text(request) -> str:
    system = request.system
    return system if isinstance(system, str) else "\n".join(part["text"] for part in system)


def test_the_cloud_model_gets_the_korean_and_the_help_rule(fake_anthropic):
    fake_anthropic.push(Reply('In English, we say "business trip". For example: "I\'m on a business trip." '
                              "Can you say it?"))
    out = cli("anthropic", "chat", "--json", "--session", "k1", "--text", ASK)
    assert out.returncode == 0, out.stderr
    turn = json.loads(out.stdout)
    assert "business trip" in turn["reply"] and turn["stored"] == []  # a question: no memory
    request = fake_anthropic.last_request()
    assert PROMPT_RULE in system_text(request)
    assert request.messages[-1]["role"] == "user"
    assert ASK in json.dumps(request.messages[-1]["content"], ensure_ascii=False)


def test_offline_the_built_in_help_answers_and_keeps_nothing(data_dir):
    out = cli("local", "chat", "--json", "--session", "k2", "--text", ASK, "--text", "다시 말해 주세요")
    assert out.returncode == 0, out.stderr
    first, again = (json.loads(line) for line in out.stdout.splitlines())
    assert first["backend"] == "built-in:how-to-say" and "first_token" not in first["timings_ms"]  # no model
    assert first["reply"] == ('In English, we say "business trip". For example: "I\'m going on a business trip '
                              'to Busan next week." Can you say "business trip"?')
    sentences = list(split_stream([first["reply"]]))
    check = ParrotCheck([ASK])
    assert len(sentences) == 3 and all(check.check(s) is None for s in sentences)  # the existing reply gates
    assert again["backend"] == "built-in:again" and first["reply"] in again["reply"]
    assert first["stored"] == [] and again["stored"] == []
    # No memory, not even a transcript line: the session left no call behind (a memory or a
    # line is only ever written with its call's record).
    end = cli("local", "end-call", "--session", "k2")
    assert end.returncode == 1 and "no call with session 'k2'" in end.stderr


def test_corrections_explained_in_korean_reach_the_report(fake_anthropic, data_dir):
    """In one process (the real store, embedder and emotion model; Claude the stand-in)."""
    from tests.integration.test_tutor_engine import real_scorer
    from tests.memory_fixtures import real_embedder
    from tutor_app.llm.factory import load_chat_model
    from tutor_app.memory.storage.store import open_store
    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.tutor.engine import EngineServices, TutorEngine

    paths = AppPaths.resolve(data_dir)
    settings = Settings.load(paths, llm_backend="anthropic")
    settings.tutor.explain_in_korean = True  # the Settings switch
    settings.llm.max_retries = 0
    store = open_store(paths.db_dir, real_embedder(), "default")
    model = load_chat_model(settings, ModelRegistry.load(paths.models_dir))
    engine = TutorEngine(EngineServices(settings=settings, emotion=real_scorer(), memory=store,
                                        chat_model=lambda: model))
    fake_anthropic.push(Reply("Oh no, what happened?"), Reply("Does she drink it every day?"))
    call = engine.start_call("k3")
    call.turn("Yesterday I go to the hospital.")
    call.turn("My sister like coffee.")
    review = {"corrections": [
        {"original": "Yesterday I go to the hospital", "better": "Yesterday I went to the hospital",
         "why": "a past event", "type": "tense", "why_ko": "어제 일이라서 과거형 went를 써요."},
        {"original": "My sister like coffee", "better": "My sister likes coffee", "why": "she likes",
         "type": "agreement", "why_ko": "Use likes."}], "new_words": []}
    fake_anthropic.push(Reply(json.dumps({})), Reply(json.dumps(review)))
    try:
        outcome = call.end(background=False)
    finally:
        store.close()
    assert "why_ko" in system_text(fake_anthropic.last_request())  # the review asked for it
    assert [(c.why, c.why_ko) for c in outcome.report.corrections] == [
        ("a past event", "어제 일이라서 과거형 went를 써요."),
        ("she likes", "주어가 he, she, it이나 한 사람·한 가지일 때 현재형 동사에 -s를 붙여요: like → likes.")]
