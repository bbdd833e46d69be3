"""The emotion reader's labels in words about the learner, in calm colours."""
from __future__ import annotations

import colorsys

from tutor_app.core.types import EMOTION_LABELS
from tutor_app.ui.emotion_words import FEELINGS, LABEL_FEELING, feeling


def test_every_label_has_a_learner_facing_phrase():
    assert set(LABEL_FEELING) == set(EMOTION_LABELS) and len(EMOTION_LABELS) == 28
    for label in EMOTION_LABELS:
        phrase = feeling(label).phrase
        assert phrase.startswith("you sound ") and label not in phrase


def test_disapproval_reads_as_the_learner_sounding_upset_not_as_a_verdict():
    assert feeling("disapproval").title == "You sound upset"
    assert feeling("nervousness").phrase == "you sound unsure"
    assert feeling("joy").phrase == "you sound happy" and feeling("curiosity").phrase == "you sound curious"
    assert feeling("neutral").phrase == "you sound calm" and feeling("no-such-label").phrase == "you sound calm"


def test_no_feeling_is_red():
    for f in FEELINGS.values():
        r, g, b = (int(f.colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
        hue, _light, sat = colorsys.rgb_to_hls(r, g, b)
        reddish = (hue < 30 / 360 or hue > 330 / 360) and sat > 0.25
        assert not reddish, f"{f.key} is red: {f.colour}"
