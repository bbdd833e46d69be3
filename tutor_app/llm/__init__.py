"""Tutor model backends: Anthropic (cloud) and transformers (local)."""
