"""The fake Messages API itself: the real SDK parses its replies like the real service's."""
from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer, Reply, Timing


def client():
    import anthropic

    return anthropic.Anthropic(max_retries=0)


def test_non_streaming_message_parses(fake_anthropic):
    fake_anthropic.push(Reply("Nice to meet you.", input_tokens=42))
    message = client().messages.create(
        model="claude-haiku-4-5", max_tokens=50, messages=[{"role": "user", "content": "hi"}]
    )
    assert message.content[0].text == "Nice to meet you."
    assert message.stop_reason == "end_turn"
    assert message.usage.input_tokens == 42
    assert message.model == "claude-haiku-4-5"


def test_stream_events_build_the_final_message(fake_anthropic):
    fake_anthropic.push(Reply(tokens=["One ", "two ", "three."]))
    with client().messages.stream(
        model="m", max_tokens=50, messages=[{"role": "user", "content": "count"}]
    ) as stream:
        texts = list(stream.text_stream)
        final = stream.get_final_message()
    assert texts == ["One ", "two ", "three."]
    assert final.content[0].text == "One two three."
    assert final.stop_reason == "end_turn"
    assert final.usage.output_tokens == 3


def test_default_reply_when_the_queue_is_empty(fake_anthropic):
    fake_anthropic.default = Reply("default answer")
    message = client().messages.create(model="m", max_tokens=5, messages=[{"role": "user", "content": "x"}])
    assert message.content[0].text == "default answer"
    assert fake_anthropic.pending() == 0


def _post(url, headers, body):
    request = urllib.request.Request(url + "/v1/messages", data=json.dumps(body).encode(), headers=headers)
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=5)
    return info.value.code, json.loads(info.value.read())


def test_missing_key_or_fields_are_refused_like_the_api():
    with FakeAnthropicServer(valid_keys={"good"}) as fake:
        code, body = _post(fake.url, {"content-type": "application/json"}, {})
        assert code == 401 and body["error"]["type"] == "authentication_error"
        code, body = _post(fake.url, {"x-api-key": "bad", "anthropic-version": "2023-06-01"}, {})
        assert code == 401 and body["error"]["message"] == "invalid x-api-key"
        code, body = _post(fake.url, {"x-api-key": "good", "anthropic-version": "2023-06-01"}, {"model": "m"})
        assert code == 400 and body["error"]["type"] == "invalid_request_error"
        assert all(r.finished.wait(10) for r in fake.requests)
        assert [r.outcome for r in fake.requests] == ["status"] * 3


def test_realistic_timing_profile():
    timing = Timing.realistic()
    assert timing.first_token_delay == pytest.approx(0.4)
    assert timing.token_delay == pytest.approx(1 / 40)
    assert Timing.realistic(first_token_ms=100, tokens_per_s=0).token_delay == 0.0


def test_text_is_split_into_word_tokens():
    assert Reply("Hello there,  friend.").deltas() == ["Hello", " there,", "  friend."]
