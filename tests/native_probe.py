"""Child process of tests/integration/test_native_refcounts.py: calls each native binding
the live call uses, as the call uses it, and prints per binding how many references to
None were lost per call. A child: a clean process where no other test's threads move
None's count, and where a binding that aborts takes down only this probe."""
from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable

import numpy as np

from tests.refcount_probe import none_count, none_drop

RATE = 16_000


def speech(seconds: float, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = int(seconds * RATE)
    envelope = np.repeat(rng.uniform(0.0, 1.0, n // 1600 + 1), 1600)[:n]
    return (0.1 * rng.standard_normal(n) * envelope).astype(np.float32)


def per_call(step: Callable[[], object], calls: int) -> float:
    return none_drop(step, calls, batch=max(1, min(50, calls // 4))) / calls


def echo_canceller() -> float:
    from tutor_app.speech.aec import EchoCanceller

    canceller = EchoCanceller.load()
    near = speech(2.0)
    blocks = iter(range(10**6))

    def block() -> None:
        i = next(blocks) % 190
        canceller.process(near[i * 160:(i + 1) * 160], 0.01 * i)

    return per_call(block, 3000)


def portaudio_callbacks() -> float | str:
    """PortAudio calls back into Python for every 10 ms block of the microphone."""
    import sounddevice as sd

    if not any(d["max_input_channels"] > 0 for d in sd.query_devices()):
        return "no input device"
    blocks = 0
    marks = {400: threading.Event(), 1400: threading.Event()}

    def callback(indata, frames, time_info, status) -> None:
        nonlocal blocks
        blocks += 1
        if blocks in marks:
            marks[blocks].set()

    with sd.InputStream(samplerate=RATE, channels=1, dtype="float32", blocksize=160, callback=callback):
        if not marks[400].wait(60):
            return "the microphone delivered no audio"
        before = none_count()
        if not marks[1400].wait(60):
            return "the microphone stopped"
        after = none_count()
    return (before - after) / 1000


def main(with_audio: bool) -> None:
    from tutor_app.app import App
    from tutor_app.core.types import AudioClip
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings
    from tutor_app.speech.smart_turn import load_smart_turn

    app = App(Settings(paths=AppPaths.resolve(sys.argv[1])))
    import sounddevice as sd

    frame, line = speech(0.032), "I am go to school yesterday with my friend."
    judge = load_smart_turn(app.registry)
    clip = AudioClip(app.tts.synthesize_all("Hello, my name is Minji."), app.tts.sample_rate)
    losses: dict[str, float | str] = {
        "webrtc echo canceller (per 10 ms block)": echo_canceller(),
        "silero vad, onnxruntime (per 32 ms frame)": per_call(lambda: app.vad.probability(frame), 2000),
        "smart turn, onnxruntime (per judgement)": per_call(lambda: judge.predict(speech(1.5)), 100),
        "emotion, onnxruntime (per line)": per_call(lambda: app.emotion.score(line), 200),
        "embedder, onnxruntime (per line)": per_call(lambda: app.embedder.embed_one(line), 200),
        # Per sentence and per utterance a few references go whatever the number of calls
        # (Piper: 3-16 over 20, 40, 80 or 160 sentences; 10 over 20 is 0.5 per call, the line
        # a leak is called at): enough calls that they stay well under it.
        "piper (per sentence)": per_call(lambda: app.tts.synthesize_all("How are you today?"), 160),
        "whisper, ctranslate2 (per utterance)": per_call(lambda: app.stt.transcribe(clip).text, 60),
        "portaudio (device list)": per_call(sd.query_devices, 300),
    }
    losses["llama.cpp (per token)"] = llama_per_token()
    if with_audio:
        losses["portaudio (per 10 ms input callback)"] = portaudio_callbacks()
    print(json.dumps(losses), flush=True)


def llama_per_token() -> float:
    from tutor_app.core.types import ChatMessage
    from tutor_app.llm.factory import resolve_gguf
    from tutor_app.llm.llama_backend import LlamaChatModel, LlamaOptions
    from tutor_app.paths import default_models_dir
    from tutor_app.registry.manifest import ModelRegistry

    chat = LlamaChatModel(resolve_gguf("smollm2-135m-instruct", ModelRegistry.load(default_models_dir())),
                          LlamaOptions(max_tokens=32, device="cpu"))
    chat.load()
    system = [("You are a friendly English tutor.", True)]
    tokens: list[str] = []

    def reply() -> None:
        tokens.extend(chat.stream(system, [ChatMessage("user", "Tell me about your weekend.")]))

    lost = none_drop(reply, 6, batch=2)
    return lost / max(1, len(tokens))


if __name__ == "__main__":
    main(with_audio=len(sys.argv) > 2 and sys.argv[2] == "audio")
