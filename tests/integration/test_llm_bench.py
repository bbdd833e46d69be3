"""Benchmark (`pytest -m bench`): what the Anthropic backend adds on top of the API's own
latency, against the fake API with realistic timing (first token 400 ms, 40 tokens/s).
Reports numbers; asserts only behaviour."""
from __future__ import annotations

import time

import pytest

from tests.fakes.anthropic_server import FAKE_API_KEY, FakeAnthropicServer, Reply, Timing
from tutor_app.core.types import ChatMessage
from tutor_app.llm.anthropic_backend import AnthropicChatModel, AnthropicOptions

pytestmark = pytest.mark.bench


def test_anthropic_time_to_first_token(monkeypatch, capsys):
    reply = "Oh, you went to the park yesterday? That sounds lovely. What did you do there?"
    with FakeAnthropicServer(timing=Timing.realistic(), default=Reply(reply)) as fake:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", fake.url)
        monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_API_KEY)
        model = AnthropicChatModel(AnthropicOptions(max_retries=0))
        rows = []
        for _ in range(3):
            start = time.perf_counter()
            first = None
            parts = []
            for delta in model.stream([("You are a tutor.", True)], [ChatMessage("user", "I go to park.")]):
                first = first if first is not None else time.perf_counter() - start
                parts.append(delta)
            rows.append((first, time.perf_counter() - start))
            assert "".join(parts) == reply
    with capsys.disabled():
        for i, (first, total) in enumerate(rows):
            print(f"\nanthropic backend vs fake API (400 ms + 40 tok/s), run {i}: "
                  f"first token {first * 1000:.0f} ms, full reply {total * 1000:.0f} ms")
