"""Emotion scoring (GoEmotions, 28 labels, multi-label sigmoid) and the care guardrail.

scorer.py     load_scorer(settings, registry): the EmotionScorer the app uses
builtin.py    the shipped fine-tuned MiniLM (assets/emotion/, int8 ONNX Runtime, ~2-3 ms)
hf.py         a transformers GoEmotions classifier from the models folder, when installed
guardrail.py  per-session check-in / crisis decisions for the tutor engine
train.py      `python -m tutor_app.emotion.train`: rebuilds assets/emotion/ (torch; never at run time)
"""
