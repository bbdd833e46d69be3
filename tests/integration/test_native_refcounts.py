"""The native bindings the app calls per audio block, per token or per utterance keep
their references to None (the bug class of PySide6 6.12.0, tests/unit/test_qt_refcounts.py):
a binding that lost one per call would end a learner's call in "Fatal Python error:
none_dealloc" after a few thousand blocks. Each is called as the live call calls it, with
the real bundled models, and None's reference count must not fall with the calls.
"""
from __future__ import annotations

import threading

import numpy as np
import pytest

from tests.refcount_probe import none_drop

pytestmark = pytest.mark.slow

RATE = 16_000


def lost_per_call(step, calls: int) -> float:
    return none_drop(step, calls, batch=max(1, min(50, calls // 4))) / calls


def speech(seconds: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    envelope = np.repeat(rng.uniform(0.0, 1.0, n // 1600 + 1), 1600)[:n]
    return (0.1 * rng.standard_normal(n) * envelope).astype(np.float32)


def test_echo_canceller_per_block():
    from tutor_app.speech.aec import EchoCanceller

    canceller = EchoCanceller.load()
    near = speech(2.0)
    blocks = iter(range(10**6))

    def block() -> None:
        i = next(blocks) % 190
        canceller.process(near[i * 160:(i + 1) * 160], 0.01 * i)

    assert lost_per_call(block, 3000) < 0.01


def test_voice_activity_and_end_of_turn_models(vad, registry):
    from tutor_app.speech.smart_turn import load_smart_turn

    frame = speech(0.032)
    assert lost_per_call(lambda: vad.probability(frame), 2000) < 0.01
    judge = load_smart_turn(registry)
    assert lost_per_call(lambda: judge.predict(speech(1.5)), 40) < 0.25


def test_emotion_and_embedder(speech_settings, registry):
    from tutor_app.emotion.scorer import load_scorer
    from tutor_app.memory.embedder import load_embedder

    scorer = load_scorer(speech_settings, registry)
    embedder = load_embedder(speech_settings, registry)
    line = "I am go to school yesterday with my friend."
    assert lost_per_call(lambda: scorer.score(line), 200) < 0.1
    assert lost_per_call(lambda: embedder.embed_one(line), 200) < 0.1


def test_whisper_and_piper(stt, tts):
    clip = tts.synthesize_all("Hello, my name is Minji.")
    assert lost_per_call(lambda: tts.synthesize_all("How are you today?"), 20) < 0.25
    from tutor_app.core.types import AudioClip

    audio = AudioClip(clip, tts.sample_rate)
    assert lost_per_call(lambda: stt.transcribe(audio).text, 20) < 0.25


def test_local_tutor_model_per_token():
    from tutor_app.core.types import ChatMessage
    from tutor_app.llm.factory import resolve_gguf
    from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions
    from tutor_app.paths import default_models_dir
    from tutor_app.registry.manifest import ModelRegistry

    model = LlamaChatModel(resolve_gguf("smollm2-135m-instruct", ModelRegistry.load(default_models_dir())),
                           LlamaOptions(max_tokens=32, device="cpu"))
    model.load()
    system = [("You are a friendly English tutor.", True)]
    tokens: list[str] = []

    def reply() -> None:
        tokens.extend(model.stream(system, [ChatMessage("user", "Tell me about your weekend.")]))

    lost = none_drop(reply, 6, batch=2)
    assert tokens and lost < len(tokens) / 4, (lost, len(tokens))


def test_portaudio_stream_callbacks():
    """PortAudio calls back into Python for every 10 ms block of the microphone."""
    from tests.conftest import missing_prerequisite
    from tests.e2e.conftest import sound_card_problem
    from tests.refcount_probe import none_count

    problem = sound_card_problem()
    if problem:
        missing_prerequisite(problem)
    import sounddevice as sd

    assert lost_per_call(sd.query_devices, 300) < 0.05
    blocks = 0
    marks = {400: threading.Event(), 1400: threading.Event()}

    def callback(indata, frames, time_info, status) -> None:
        nonlocal blocks
        blocks += 1
        if blocks in marks:
            marks[blocks].set()

    with sd.InputStream(samplerate=RATE, channels=1, dtype="float32", blocksize=160, callback=callback):
        assert marks[400].wait(60), "the virtual microphone delivered no audio"
        before = none_count()
        assert marks[1400].wait(60), "the virtual microphone stopped"
        after = none_count()
    assert before - after < 10, f"{before - after} references to None lost over 1000 PortAudio blocks"
