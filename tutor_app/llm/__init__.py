"""Tutor model backends: Anthropic (cloud), llama.cpp (a GGUF in the app) and an OpenAI-compatible local server."""
