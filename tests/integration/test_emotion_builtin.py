"""The shipped built-in scorer (assets/emotion/ + the bundled MiniLM): behaviour on clear
sentences and on bad input, and the `tutor-app emotion` command."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from tutor_app.core.types import EMOTION_LABELS
from tutor_app.errors import TutorError

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
CLI = [str(Path(sys.executable).with_name("tutor-app"))]


@pytest.fixture(scope="module")
def scorer():
    from tutor_app.emotion.builtin import BuiltinScorer

    return BuiltinScorer.load()


@pytest.mark.parametrize("text, label", [
    ("I am so happy and glad today!", "joy"),
    ("I'm so angry right now, I hate this!", "anger"),
    ("Thank you so much for your help!", "gratitude"),
    ("I feel so sad and lonely since my dog died.", "sadness"),
    ("The meeting is on Tuesday at three.", "neutral"),
])
def test_clear_sentences_get_the_right_top_label(scorer, text, label):
    out = scorer.score(text)
    assert out[0].label == label
    assert label in scorer.predicted(out)


@pytest.mark.parametrize("text, label", [("😂😂😂", "amusement"), ("😭", "sadness"), ("🙏", "gratitude")])
def test_emoji_only_messages_are_read(scorer, text, label):
    assert scorer.score(text)[0].label == label


def test_scores_cover_all_labels_in_range_highest_first(scorer):
    for out in scorer.score_batch(["Wow, what a surprise!", "I'm nervous about tomorrow.", "ok"]):
        assert sorted(s.label for s in out) == sorted(EMOTION_LABELS)
        values = [s.score for s in out]
        assert all(0.0 <= v <= 1.0 for v in values)
        assert values == sorted(values, reverse=True)


def test_batch_scores_equal_single_scores(scorer):
    texts = ["Thanks!", "I can't believe you did that to me, I'm furious and disappointed.", "Hmm."]
    batch = scorer.probabilities(texts)
    # Dynamic int8 quantisation scales activations per batch, so tiny differences are expected.
    for i, text in enumerate(texts):
        np.testing.assert_allclose(batch[i], scorer.probabilities([text])[0], atol=0.01)


def _base_copy(tmp_path, *names):
    src, dst = REPO / "models" / "all-minilm-l6-v2", tmp_path / "minilm"  # installed by the setup
    for name in names:
        (dst / name).parent.mkdir(parents=True, exist_ok=True)
        (dst / name).write_bytes((src / name).read_bytes())
    return dst


class _Registry:  # what the loader asks of the model registry: where the base model is
    def __init__(self, folder):
        self.folder = folder

    def path(self, name):
        return self.folder


def test_a_torch_free_install_reads_the_word_embeddings_from_the_onnx_export(tmp_path, scorer):
    """The installer leaves MiniLM's safetensors out: the same matrix comes from onnx/model.onnx."""
    from tutor_app.emotion.builtin import BuiltinScorer

    base = _base_copy(tmp_path, "onnx/model.onnx", "tokenizer.json")
    slim = BuiltinScorer.load(registry=_Registry(base))
    assert np.array_equal(slim.word, scorer.word)
    texts = ["I am so happy and glad today!", "Thank you so much for your help!"]
    np.testing.assert_array_equal(slim.probabilities(texts), scorer.probabilities(texts))


def test_other_word_embeddings_are_refused(tmp_path):
    """A base model whose matrix differs from the trained one (here one weight changed) is refused."""
    from tutor_app.core.onnx_weights import read_weight
    from tutor_app.emotion.builtin import BuiltinScorer

    base = _base_copy(tmp_path, "onnx/model.onnx", "tokenizer.json")
    onnx_file = base / "onnx" / "model.onnx"
    first = read_weight(onnx_file, "model.embeddings.word_embeddings.weight")[0, 0]
    data = bytearray(onnx_file.read_bytes())
    at = data.find(np.float32(first).tobytes())
    data[at:at + 4] = np.float32(first + 1.0).tobytes()
    onnx_file.write_bytes(bytes(data))
    with pytest.raises(TutorError, match="not the version the emotion model was trained on"):
        BuiltinScorer.load(registry=_Registry(base))


def test_bad_inputs(scorer):
    empty = scorer.score("")
    assert (empty[0].label, empty[0].score) == ("neutral", 1.0)
    assert all(s.score == 0.0 for s in empty[1:])
    long_text = scorer.score("I love this. " * 1600)  # ~20 KB: truncated to the model window
    assert len(long_text) == 28 and all(0.0 <= s.score <= 1.0 for s in long_text)
    for text in ("😂😂😂", "🙂", "오늘 정말 기분 좋아요", "요즘 너무 힘들고 지쳤어...", "\x00\t\n", "!!!???"):
        out = scorer.score(text)
        assert len(out) == 28 and all(np.isfinite(s.score) and 0.0 <= s.score <= 1.0 for s in out)
        assert set(scorer.predicted(out)) <= set(EMOTION_LABELS)


def test_artefact_is_small_and_describes_itself():
    from tutor_app.emotion.builtin import META_FILE, default_artefact_dir

    folder = default_artefact_dir()
    assert sum(f.stat().st_size for f in folder.iterdir() if f.is_file()) <= 25 * 1024 * 1024
    meta = json.loads((folder / META_FILE).read_text())
    assert meta["labels"] == list(EMOTION_LABELS)
    assert len(meta["thresholds"]) == 28 and all(0.0 < t < 1.0 for t in meta["thresholds"])
    for key in ("seed", "hyper_parameters", "dev_scores", "data"):
        assert key in meta
    assert len(meta["data"]["train_tsv_sha256"]) == 64


def test_app_builds_the_builtin_scorer(tmp_path):
    from tutor_app.app import App
    from tutor_app.core.protocols import EmotionScorer
    from tutor_app.paths import AppPaths
    from tutor_app.settings import Settings

    app = App(Settings(paths=AppPaths.resolve(tmp_path / "data")))
    assert isinstance(app.emotion, EmotionScorer)
    assert app.emotion.score("Thank you!")[0].label == "gratitude"


# --- the command line ----------------------------------------------------------------------
def _cli(tmp_path, *args, stdin=None):
    return subprocess.run([*CLI, "--data-dir", str(tmp_path / "data"), "emotion", *args], input=stdin,
                          capture_output=True, text=True, cwd=REPO, timeout=300)


def test_cli_json_shape(tmp_path):
    proc = _cli(tmp_path, "--json", "Thank you so much!", "")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(line) for line in proc.stdout.splitlines()]
    assert [obj["text"] for obj in lines] == ["Thank you so much!", ""]
    for obj in lines:
        assert set(obj) == {"text", "emotions", "predicted"}
        assert [e["label"] for e in obj["emotions"]] and len(obj["emotions"]) == 28
        assert sorted(e["label"] for e in obj["emotions"]) == sorted(EMOTION_LABELS)
        scores = [e["score"] for e in obj["emotions"]]
        assert scores == sorted(scores, reverse=True) and all(0 <= s <= 1 for s in scores)
        assert set(obj["predicted"]) <= set(EMOTION_LABELS)
    assert lines[0]["emotions"][0]["label"] == "gratitude" and "gratitude" in lines[0]["predicted"]
    assert lines[1]["predicted"] == ["neutral"] and lines[1]["emotions"][0] == {"label": "neutral", "score": 1.0}


def test_cli_reads_stdin_lines_and_prints_human_lines(tmp_path):
    proc = _cli(tmp_path, stdin="Thank you so much!\n\nI am so angry!\n")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 2
    assert "gratitude" in lines[0] and "Thank you so much!" in lines[0]
    assert "anger" in lines[1]


def test_cli_with_a_missing_artefact_fails_with_one_clear_line(tmp_path, monkeypatch, capsys):
    from tutor_app import cli
    from tutor_app.emotion import builtin

    monkeypatch.setattr(builtin, "default_artefact_dir", lambda: tmp_path / "no-assets")
    code = cli.main(["--data-dir", str(tmp_path / "data"), "emotion", "hello"])
    err = capsys.readouterr().err
    assert code == 1
    assert "tutor_app.emotion.train" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
