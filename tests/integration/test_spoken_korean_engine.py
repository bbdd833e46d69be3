"""Spoken Korean through the real engine (the real Whisper tiny.en turns the clip away, the
real store, emotion model and offline help; Claude the local stand-in): a spoken Korean
help request gets the answer the typed one gets, and nothing of it is stored. The
multilingual model is scripted (tests/unit/test_spoken_korean.py's ScriptedEar): no Korean
recording exists here, and espeak-ng's Korean is not heard as Korean by the real one."""
from __future__ import annotations

import json

import pytest

from tests.conftest import missing_prerequisite
from tests.fakes.anthropic_server import Reply
from tests.unit.test_spoken_korean import ASK, WANTED, ScriptedEar, korean
from tutor_app.bench.language_clips import KOREAN, espeak, espeak_available, padded
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.tutor.korean_help import PROMPT_RULE

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def korean_clip(tmp_path_factory):
    """"출장은 영어로 뭐예요?" in espeak-ng's Korean voice: audio the English gate turns away."""
    if not espeak_available():
        missing_prerequisite("espeak-ng is not installed (scripts/system-packages.sh installs it)")
    return padded(espeak(KOREAN[1], "ko", tmp_path_factory.mktemp("ko"), "ask"))


@pytest.fixture
def engine_for(data_dir, stt):
    """engine_for(llm) -> (TutorEngine, its store) with the real STT, store and emotion model."""
    from tests.integration.test_tutor_engine import real_scorer
    from tests.memory_fixtures import real_embedder
    from tutor_app.llm.factory import load_chat_model
    from tutor_app.memory.storage.store import open_store
    from tutor_app.registry.manifest import ModelRegistry
    from tutor_app.tutor.engine import EngineServices, TutorEngine

    stores = []

    def make(llm: str):
        paths = AppPaths.resolve(data_dir)
        settings = Settings.load(paths, llm_backend=llm)
        settings.llm.max_retries = 0
        settings.llm.fallback_to_local = False
        store = open_store(paths.db_dir, real_embedder(), "default")
        stores.append(store)
        model = load_chat_model(settings, ModelRegistry.load(paths.models_dir))
        return TutorEngine(EngineServices(settings=settings, emotion=real_scorer(), memory=store,
                                          chat_model=lambda: model, stt=lambda: stt)), store

    yield make
    for store in stores:
        store.close()


def test_offline_a_spoken_korean_help_request_gets_the_typed_answer(engine_for, korean_clip):
    engine, store = engine_for("local")
    typed = engine.start_call("typed").turn(ASK)
    ear = ScriptedEar(korean(ASK))
    spoken = engine.start_call("spoken").turn_audio(korean_clip, ear=ear)
    assert ear.asked == [WANTED]  # the English gate turned the clip away first
    assert spoken.reply == typed.reply and spoken.backend == "built-in:how-to-say"
    assert "business trip" in spoken.reply and spoken.transcript == ASK and spoken.not_heard is None
    assert spoken.stored == [] and store.count() == 0
    assert store.session_messages("spoken") == []


def test_the_cloud_model_gets_spoken_korean_with_the_help_rule_and_nothing_is_stored(engine_for, korean_clip,
                                                                                     fake_anthropic):
    """A Korean turn that is not a help request, with a save trigger (기억해) that typed
    would store: spoken, the model answers it, and nothing of it is kept."""
    engine, store = engine_for("anthropic")
    said = "저는 간호사예요. 기억해 주세요."
    fake_anthropic.push(Reply('You can say "I\'m a nurse." Can you say it?'))
    call = engine.start_call("cloud")
    result = call.turn_audio(korean_clip, ear=ScriptedEar(korean(said)))
    assert "nurse" in result.reply and result.transcript == said and result.stored == []
    request = fake_anthropic.last_request()
    system = request.system if isinstance(request.system, str) else "\n".join(p["text"] for p in request.system)
    assert PROMPT_RULE in system
    assert said in json.dumps(request.messages[-1]["content"], ensure_ascii=False)
    assert store.count() == 0 and store.session_messages("cloud") == []  # no memory, no transcript line
    assert [t.user_text for t in call.turns] == [""]  # nothing for the call end either
    fake_anthropic.push(Reply("Got it, you're a nurse."))
    typed = engine.start_call("typed").turn(said)
    assert typed.stored  # the same words typed are the learner's and kept: the difference is the ear
