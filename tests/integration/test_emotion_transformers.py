"""The transformers loading path, with a tiny randomly initialised 28-label classifier built
in a temp folder (no hub access)."""
from __future__ import annotations

import json
import random
import shutil

import numpy as np
import pytest

from tutor_app.core.types import EMOTION_LABELS
from tutor_app.emotion.base import base_model_dir
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings

pytestmark = pytest.mark.slow

TOKENIZER_FILES = ("tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")


@pytest.fixture(scope="module")
def tiny_model_dir(tmp_path_factory):
    """A 1-layer, 16-wide BERT classifier whose id2label lists the 28 labels in a shuffled order."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(0)
    models = tmp_path_factory.mktemp("models")
    folder = models / "tiny-goemotions"
    shuffled = list(EMOTION_LABELS)
    random.Random(3).shuffle(shuffled)
    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=128, num_labels=28,
                        id2label=dict(enumerate(shuffled)), label2id={lab: i for i, lab in enumerate(shuffled)},
                        problem_type="multi_label_classification")
    model = BertForSequenceClassification(config)
    with torch.no_grad():  # spread the outputs so the ranking is not a tie
        model.classifier.bias.copy_(torch.linspace(-3, 3, 28))
    model.save_pretrained(folder)
    for name in TOKENIZER_FILES:
        shutil.copy(base_model_dir() / name, folder / name)
    return folder, shuffled


def _settings(tmp_path, models_dir, model_name):
    root = tmp_path / "data"
    settings = Settings(paths=AppPaths(root, root / "config", root / "cache", models_dir))
    settings.emotion.model = model_name
    return settings


def test_transformers_model_in_models_dir_is_used(tmp_path, tiny_model_dir):
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    from tutor_app.emotion.hf import TransformersScorer
    from tutor_app.emotion.scorer import load_scorer

    folder, shuffled = tiny_model_dir
    scorer = load_scorer(_settings(tmp_path, folder.parent, folder.name))
    assert isinstance(scorer, TransformersScorer)
    texts = ["Thank you so much!", "I hate this.", "", "🙂", "x " * 5000]
    probs = scorer.probabilities(texts)
    assert probs.shape == (5, 28)
    assert ((probs >= 0) & (probs <= 1)).all()

    # Label order: our column for a label equals the model's own output for that label.
    tok = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForSequenceClassification.from_pretrained(folder).eval()
    with torch.no_grad():
        ref = torch.sigmoid(model(**tok(texts[:2], padding=True, return_tensors="pt")).logits).numpy()
    for j, label in enumerate(EMOTION_LABELS):
        np.testing.assert_allclose(probs[:2, j], ref[:, shuffled.index(label)], atol=1e-5)

    out = scorer.score("Thank you so much!")
    assert [s.label for s in out] != list(EMOTION_LABELS) and sorted(s.label for s in out) == sorted(EMOTION_LABELS)
    assert [s.score for s in out] == sorted((s.score for s in out), reverse=True)
    assert scorer.score("")[0].label == "neutral"
    assert scorer.predicted(out) == [s.label for s in out if s.score >= 0.5]


def test_thresholds_file_beside_the_model_is_honoured(tmp_path, tiny_model_dir):
    from tutor_app.emotion.scorer import load_scorer

    folder, _ = tiny_model_dir
    (folder / "thresholds.json").write_text(json.dumps({lab: 0.99 for lab in EMOTION_LABELS}))
    try:
        scorer = load_scorer(_settings(tmp_path, folder.parent, folder.name))
        assert scorer.predicted(scorer.score("I love it")) == []  # nothing reaches 0.99
        assert float(scorer.thresholds[0]) == pytest.approx(0.99)
    finally:
        (folder / "thresholds.json").unlink()


def test_a_model_with_other_labels_is_refused(tmp_path):
    from transformers import BertConfig, BertForSequenceClassification

    from tutor_app.emotion.hf import TransformersScorer
    from tutor_app.errors import TutorError

    folder = tmp_path / "sentiment"
    config = BertConfig(vocab_size=30522, hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, num_labels=2, id2label={0: "negative", 1: "positive"},
                        label2id={"negative": 0, "positive": 1})
    BertForSequenceClassification(config).save_pretrained(folder)
    for name in TOKENIZER_FILES:
        shutil.copy(base_model_dir() / name, folder / name)
    with pytest.raises(TutorError, match="GoEmotions"):
        TransformersScorer.load(folder)


def test_uninstalled_transformers_model_falls_back_to_builtin(tmp_path):
    from tutor_app.emotion.builtin import BuiltinScorer
    from tutor_app.emotion.scorer import load_scorer

    scorer = load_scorer(_settings(tmp_path, tmp_path / "no-models", "roberta-base-go_emotions"))
    assert isinstance(scorer, BuiltinScorer)
