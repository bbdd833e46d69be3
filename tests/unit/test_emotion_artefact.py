"""Missing or corrupt emotion artefacts fail with one clear TutorError naming the training command;
metrics and the shared scoring logic behave."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tutor_app.core.types import EMOTION_LABELS
from tutor_app.emotion.base import WEIGHTS_FILE, base_model_dir
from tutor_app.emotion.builtin import ARTEFACT_FILE, META_FILE, BuiltinScorer
from tutor_app.emotion.common import ProbabilityScorer
from tutor_app.emotion.data import sha256_file
from tutor_app.emotion.metrics import cross_fitted_macro_f1, f1_report, tune_thresholds
from tutor_app.errors import TutorError

TRAIN_CMD = "python -m tutor_app.emotion.train"


def meta(**over):
    data = {"format": 1, "labels": list(EMOTION_LABELS), "max_len": 64,
            "thresholds": [0.5] * len(EMOTION_LABELS), "base": {"sha256": "0" * 64}}
    data.update(over)
    return data


def test_missing_artefact_names_the_training_command(tmp_path):
    with pytest.raises(TutorError) as err:
        BuiltinScorer.load(tmp_path)
    assert TRAIN_CMD in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("content", ["{not json", json.dumps(meta(labels=["joy"])), json.dumps({"labels": []})])
def test_unreadable_description_is_a_clear_error(tmp_path, content):
    (tmp_path / META_FILE).write_text(content)
    (tmp_path / ARTEFACT_FILE).write_bytes(b"whatever")
    with pytest.raises(TutorError, match="tutor_app.emotion.train"):
        BuiltinScorer.load(tmp_path)


def test_corrupt_weights_file_is_a_clear_error(tmp_path):
    (tmp_path / META_FILE).write_text(json.dumps(meta()))
    (tmp_path / ARTEFACT_FILE).write_bytes(b"\x00garbage" * 100)
    with pytest.raises(TutorError, match="tutor_app.emotion.train"):
        BuiltinScorer.load(tmp_path, verify=False)


def test_checksum_mismatch_is_reported_as_corrupt(tmp_path):
    base_sha = sha256_file(base_model_dir() / WEIGHTS_FILE)
    (tmp_path / META_FILE).write_text(json.dumps(meta(base={"sha256": base_sha}, artefact_sha256="f" * 64)))
    (tmp_path / ARTEFACT_FILE).write_bytes(b"truncated")
    with pytest.raises(TutorError, match="corrupt"):
        BuiltinScorer.load(tmp_path)


def test_a_different_base_encoder_is_refused(tmp_path):
    (tmp_path / META_FILE).write_text(json.dumps(meta()))
    (tmp_path / ARTEFACT_FILE).write_bytes(b"x")
    with pytest.raises(TutorError, match="all-MiniLM-L6-v2"):
        BuiltinScorer.load(tmp_path)


# --- metrics -------------------------------------------------------------------------------
def test_f1_report_macro_and_micro():
    y = np.array([[1, 0], [1, 0], [0, 1], [0, 0]])
    p = np.array([[1, 0], [0, 0], [0, 1], [0, 1]])
    rep = f1_report(y, p)
    assert rep.per_label == pytest.approx((2 / 3, 2 / 3))
    assert rep.macro_f1 == pytest.approx(2 / 3)
    assert rep.micro_f1 == pytest.approx(2 * 2 / (2 * 2 + 1 + 1))


def test_thresholds_are_tuned_per_label():
    y = np.array([[1, 0], [1, 1], [0, 1], [0, 0]] * 5)
    probs = np.array([[0.3, 0.1], [0.35, 0.8], [0.1, 0.9], [0.05, 0.2]] * 5, dtype=np.float32)
    th = tune_thresholds(y, probs)
    assert 0.1 < th[0] <= 0.3 and 0.2 < th[1] <= 0.8
    assert f1_report(y, probs >= th).macro_f1 == 1.0
    assert cross_fitted_macro_f1(y, probs) > 0.9


# --- shared scoring logic ---------------------------------------------------------------------
class _Constant(ProbabilityScorer):
    """A stand-in model with fixed outputs, to test the shared ranking/threshold code."""

    def __init__(self):
        self.thresholds = np.full(len(EMOTION_LABELS), 0.5, dtype=np.float32)
        self.seen: list[str] = []

    def _probabilities(self, texts, batch_size):
        self.seen.extend(texts)
        row = np.linspace(0.0, 0.9, len(EMOTION_LABELS), dtype=np.float32)
        return np.tile(row, (len(texts), 1))


def test_empty_text_is_neutral_without_asking_the_model():
    s = _Constant()
    for text in ("", "   ", None):
        out = s.score(text)
        assert out[0].label == "neutral" and out[0].score == 1.0
        assert all(x.score == 0.0 for x in out[1:]) and len(out) == 28
    assert s.seen == []
    assert s.predicted(s.score("")) == ["neutral"]


def test_scores_are_ranked_complete_and_long_text_is_clipped():
    s = _Constant()
    out = s.score("x" * 20000)
    assert [o.label for o in out] == list(reversed(EMOTION_LABELS))
    assert len(s.seen[0]) <= 4000
    assert s.predicted(out) == [o.label for o in out if o.score >= 0.5]


def test_emoji_only_messages_are_spelled_out_for_the_builtin_model():
    from tutor_app.emotion.emoji import spell_out

    assert spell_out("😭😭😭") == "crying, so sad"
    assert spell_out("❤️ 🙏") == "love it thank you"
    assert spell_out("I passed! 🎉") == "I passed! 🎉"  # text with words stays as trained
    assert spell_out("오늘 좋아요 😊") == "오늘 좋아요 😊"
    assert spell_out("🫠") == "🫠"  # unknown emoji are left alone
    assert spell_out("") == ""
