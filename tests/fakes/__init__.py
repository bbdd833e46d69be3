"""Test doubles at the process boundary (a local fake of the Anthropic API, ...)."""
