"""Emotion scoring (GoEmotions) and the care guardrail."""
