"""pytest fixtures for the fakes. Registered for the whole suite by tests/conftest.py.

`fake_anthropic` starts a `FakeAnthropicServer` on 127.0.0.1 and points the real SDK
at it through its own variables (ANTHROPIC_BASE_URL, ANTHROPIC_API_KEY), so any code
that builds an `anthropic.Anthropic()` after the fixture talks to the fake. It uses
the shared `data_dir` fixture first, which clears those variables, so the order of
the test's arguments does not matter.
"""
from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.fakes.anthropic_server import FAKE_API_KEY, FakeAnthropicServer


@pytest.fixture
def fake_anthropic(data_dir, monkeypatch) -> Iterator[FakeAnthropicServer]:
    with FakeAnthropicServer() as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_API_KEY)
        monkeypatch.delenv("ANTHROPIC_AUTH_TOKEN", raising=False)
        yield fake
