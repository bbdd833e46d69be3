"""The emotion reader's 28 GoEmotions labels in words a learner reads as about
themselves (QT_TRANSLATE_NOOP("Feeling", "you sound unsure")), with calm colours.

A raw label shown next to the learner's sentence reads as the tutor's verdict: a red
"disapproval" after "She don't like coffee" looks like the tutor disapproving of them.
So the call view and the report show a handful of feelings; the raw label stays in the
tooltip. No colour is red: a negative feeling of the learner is not an error.
No Qt here (the UI's wording, testable on its own)."""
from __future__ import annotations

from dataclasses import dataclass

from tutor_app.ui.tr_mark import QT_TRANSLATE_NOOP  # shown translated: ui/translation.py feeling_words


@dataclass(frozen=True)
class Feeling:
    key: str
    phrase: str  # QT_TRANSLATE_NOOP("Feeling", "you sound unsure"): lower case, for a sentence; `title` for a chip
    colour: str  # chip / chart dot (white text is readable on it)

    @property
    def title(self) -> str:
        return self.phrase[:1].upper() + self.phrase[1:]


FEELINGS = {f.key: f for f in (
    Feeling("happy", QT_TRANSLATE_NOOP("Feeling", "you sound happy"), "#2f9473"),
    Feeling("curious", QT_TRANSLATE_NOOP("Feeling", "you sound curious"), "#3f7fcf"),
    Feeling("unsure", QT_TRANSLATE_NOOP("Feeling", "you sound unsure"), "#8a6fc9"),
    Feeling("upset", QT_TRANSLATE_NOOP("Feeling", "you sound upset"), "#6f7f9c"),
    Feeling("down", QT_TRANSLATE_NOOP("Feeling", "you sound a bit down"), "#5f79a8"),
    Feeling("calm", QT_TRANSLATE_NOOP("Feeling", "you sound calm"), "#7f8a9c"),
)}

# Every label of tutor_app.core.types.EMOTION_LABELS (a test checks none is missing).
LABEL_FEELING = {
    **dict.fromkeys(("joy", "amusement", "excitement", "gratitude", "love", "optimism", "pride", "relief",
                     "admiration", "approval", "caring"), "happy"),
    **dict.fromkeys(("curiosity", "surprise", "realization", "desire"), "curious"),
    **dict.fromkeys(("confusion", "nervousness", "embarrassment", "fear"), "unsure"),
    **dict.fromkeys(("anger", "annoyance", "disgust", "disapproval"), "upset"),
    **dict.fromkeys(("sadness", "grief", "disappointment", "remorse"), "down"),
    "neutral": "calm",
}


def feeling(label: str) -> Feeling:
    """The learner-facing feeling of a raw label (an unknown label reads as calm)."""
    return FEELINGS[LABEL_FEELING.get(label, "calm")]
