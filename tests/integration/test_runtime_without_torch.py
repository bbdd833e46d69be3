"""The main commands as a user runs them, in sub-processes that cannot import torch,
transformers or sentence-transformers (the installed app carries none of them): speech
recognition of a shared clip, the voice, emotions, memory, a local tutor turn, doctor and
models status all work; the optional PyTorch paths say so in one line."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from tests.no_torch import env_without_torch

pytestmark = pytest.mark.slow

CLIP = "pocketsphinx_librivox_sense_and_sensibility_01_austen_64kb-0870.wav"


@pytest.fixture
def no_torch(tmp_path, data_dir):
    env = env_without_torch(tmp_path / "site")
    env["QT_QPA_PLATFORM"] = "offscreen"

    def run(*args, check=True):
        result = subprocess.run([sys.executable, "-m", "tutor_app", *map(str, args)], env=env,
                                capture_output=True, text=True, timeout=600)
        if check:
            assert result.returncode == 0, result.stderr
            assert "Traceback" not in result.stderr
        return result

    run.env = env
    return run


def test_the_hiding_works(no_torch):
    code = ("import importlib.util, sys\n"
            "import tutor_app.cli\n"
            "for name in ('torch', 'transformers', 'sentence_transformers'):\n"
            "    assert importlib.util.find_spec(name) is None, name\n"
            "    try:\n"
            "        __import__(name)\n"
            "    except ModuleNotFoundError:\n"
            "        pass\n"
            "    else:\n"
            "        sys.exit(name + ' imported')\n")
    result = subprocess.run([sys.executable, "-c", code], env=no_torch.env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr + result.stdout


def test_main_commands_run_without_torch(no_torch, shared_data, tmp_path):
    out = no_torch("transcribe", shared_data / "speech" / CLIP).stdout.lower()
    for word in ("john dashwood", "leisure", "consider", "prudently", "power"):
        assert word in out

    emotions = no_torch("emotion", "Thank you so much, I love it!").stdout
    assert "gratitude" in emotions

    added = no_torch("memory", "add", "My sister Jiwon lives in Seoul").stdout.strip()
    hits = no_torch("memory", "search", "where does my sister live").stdout
    assert added and added in hits and "Seoul" in hits

    wav = tmp_path / "hello.wav"
    no_torch("speak", "Hello! How was your weekend?", "--output", wav)
    assert wav.stat().st_size > 10_000

    chat = no_torch("--llm", "local", "chat", "--text", "Hi! I like coffee.").stdout
    assert "tutor:" in chat

    doctor = no_torch("doctor", check=False)
    assert "Traceback" not in doctor.stderr
    for role in ("stt", "tts", "embedder", "emotion", "llm-local"):
        assert any(line.startswith("[OK] models") and f"{role}:" in line for line in doctor.stdout.splitlines()), role

    status = no_torch("models", "status").stdout
    assert "all-minilm-l6-v2" in status and "installed" in status


def test_an_embedder_without_its_onnx_export_is_one_clear_line(no_torch, tmp_path):
    """Without the export and without torch nothing can embed: say what to install."""
    from tutor_app.paths import source_root

    models = tmp_path / "models"
    shutil.copytree(source_root() / "models" / "all-minilm-l6-v2", models / "all-minilm-l6-v2",
                    ignore=shutil.ignore_patterns("onnx"))
    code = ("from pathlib import Path\n"
            "from tutor_app.errors import ModelMissingError\n"
            "from tutor_app.memory.embedder import SentenceEmbedder\n"
            f"emb = SentenceEmbedder('all-minilm-l6-v2', Path({str(models / 'all-minilm-l6-v2')!r}))\n"
            "try:\n"
            "    emb.embed_one('hello')\n"
            "except ModelMissingError as exc:\n"
            "    print(exc)\n")
    result = subprocess.run([sys.executable, "-c", code], env=no_torch.env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    line = result.stdout.strip()
    assert len(line.splitlines()) == 1
    assert "no ONNX export" in line and "tutor-app[hf]" in line and "models install all-minilm-l6-v2" in line


def test_a_transformers_emotion_model_falls_back_to_builtin_with_one_warning(no_torch, data_dir, tmp_path):
    """A transformers GoEmotions folder chosen in settings: without transformers the
    built-in scorer answers and one warning line says why."""
    folder = tmp_path / "models-extra" / "my-goemotions"
    folder.mkdir(parents=True)
    (folder / "config.json").write_text(json.dumps({"architectures": ["BertForSequenceClassification"]}))
    code = ("from tutor_app.emotion.scorer import load_scorer\n"
            "from tutor_app.emotion.builtin import BuiltinScorer\n"
            "from tutor_app.paths import AppPaths\n"
            "from tutor_app.settings import Settings\n"
            "import logging, sys\n"
            "logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format='%(message)s')\n"
            f"settings = Settings(paths=AppPaths.resolve({str(data_dir)!r}))\n"
            f"settings.emotion.model = {str(folder)!r}\n"
            "scorer = load_scorer(settings)\n"
            "assert isinstance(scorer, BuiltinScorer), type(scorer)\n"
            "print(scorer.score('Thank you so much!')[0].label)\n")
    result = subprocess.run([sys.executable, "-c", code], env=no_torch.env, capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "gratitude"
    warnings = [line for line in result.stderr.splitlines() if "my-goemotions" in line]
    assert len(warnings) == 1
    assert "needs transformers and torch" in warnings[0] and "built-in scorer" in warnings[0]


def test_models_install_without_torch_keeps_the_model_and_says_how_to_export(no_torch, tmp_path):
    """A fresh install of the embedder where torch is missing: the files are installed
    (the built-in emotion model reads them), and one line says how to get the export."""
    models = tmp_path / "models"
    env = dict(no_torch.env, TUTOR_APP_MODELS_DIR=str(models))
    result = subprocess.run([sys.executable, "-m", "tutor_app", "models", "install", "all-minilm-l6-v2"],
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    text = result.stdout + result.stderr
    assert "needs torch and transformers" in text and "tutor-app[hf]" in text
    assert "will use PyTorch" not in text and ".partial" not in text
    assert "`tutor-app models install all-minilm-l6-v2`" in text
    assert (models / "all-minilm-l6-v2" / "model.safetensors").is_file()
    assert not (models / "all-minilm-l6-v2" / "onnx" / "model.onnx").exists()
