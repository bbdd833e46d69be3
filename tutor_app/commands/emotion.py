"""`tutor-app emotion [TEXT...] [--json]`: GoEmotions scores for each text (stdin lines if none)."""
from __future__ import annotations

import argparse

from tutor_app.commands import check_size, print_json, stdin_lines, text_arg


def register(subparsers, common) -> None:
    p = subparsers.add_parser(
        "emotion", parents=[common],
        help="score the emotions in text (28 GoEmotions labels)",
        description="Score each TEXT (or each stdin line) with the emotion model. "
                    "JSON: one object per text: text, emotions [{label, score}] (all 28, highest "
                    "first), predicted [labels over the model's per-label thresholds].",
    )
    p.add_argument("text", nargs="*", type=text_arg, metavar="TEXT", help="texts to score (default: stdin lines)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=run)


def run(args: argparse.Namespace, app) -> int:
    from tutor_app.memory.storage.schema import MAX_MESSAGE_BYTES

    # A text to score is at most a transcript line; checked before the model loads.
    texts = [check_size(t, MAX_MESSAGE_BYTES, "text") for t in args.text] or stdin_lines(MAX_MESSAGE_BYTES, "text")
    if not texts:
        from tutor_app.errors import UsageError

        raise UsageError("emotion: give TEXT arguments or pipe lines on stdin")
    from tutor_app.emotion.scorer import scorer_for

    scorer = scorer_for(app)
    for text, scores in zip(texts, scorer.score_batch(texts)):
        predicted = scorer.predicted(scores)
        if args.json:
            print_json({"text": text, "emotions": [s.to_dict() for s in scores], "predicted": predicted})
        else:
            top = ", ".join(f"{s.label} {s.score:.2f}" for s in scores[:3])
            shown = text if len(text) <= 60 else text[:57] + "..."
            print(f"{'/'.join(predicted) or '-':<24} [{top}]  {shown}")
    return 0
