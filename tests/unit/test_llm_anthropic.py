"""The Anthropic backend through the real SDK against the local fake Messages API."""
from __future__ import annotations

import socket

import pytest

from tests.fakes.anthropic_server import FAKE_API_KEY, Reply
from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.errors import TutorError
from tutor_app.llm.anthropic_backend import AnthropicChatModel, AnthropicOptions
from tutor_app.llm.errors import (
    LLMAuthError,
    LLMBadJSONError,
    LLMRateLimitError,
    LLMRequestError,
    LLMStreamCutError,
    LLMUnavailableError,
)
from tutor_app.llm.system import SystemPart

HI = [ChatMessage("user", "Hi! I go to park yesterday.")]
QUICK_RETRY = {"retry-after-ms": "1"}  # the SDK honours it: retries stay instant


def make_model(**overrides) -> AnthropicChatModel:
    options = AnthropicOptions(model="claude-test-model", max_tokens=123, timeout_s=10.0, max_retries=2,
                               stream_timeout_s=10.0, stream_max_retries=2)
    for name, value in overrides.items():
        setattr(options, name, value)
        if name in ("timeout_s", "max_retries"):  # a stream has its own (call-sized) values
            setattr(options, f"stream_{name}", value)
    return AnthropicChatModel(options)


# -- streaming -------------------------------------------------------------------------
def test_stream_yields_deltas_in_order(fake_anthropic):
    fake_anthropic.push(Reply(tokens=["Oh, ", "you went ", "to the park ", "yesterday?"]))
    deltas = list(make_model().stream("You are a tutor.", HI))
    assert deltas == ["Oh, ", "you went ", "to the park ", "yesterday?"]
    request = fake_anthropic.last_request()
    assert request.finished.wait(10)  # the server may still be closing the stream
    assert request.outcome == "complete"


def test_request_carries_model_system_cache_control_and_messages(fake_anthropic):
    fake_anthropic.push("Sure.")
    history = [
        ChatMessage("user", "Hello"),
        ChatMessage("assistant", "Hi! How are you?"),
        ChatMessage("user", ""),  # empty turns are dropped (the API rejects them)
        ChatMessage("user", "Fine, thanks."),
    ]
    system = [SystemPart("Stable tutor rules.", True), ("Known facts: name Minji.", True),
              ("Learner emotion now: joy 0.8", False), ("late flag ignored", True)]
    assert "".join(make_model().stream(system, history)) == "Sure."

    req = fake_anthropic.last_request()
    assert req.path == "/v1/messages"
    assert req.api_key == FAKE_API_KEY
    assert "anthropic-version" in req.headers
    assert req.stream is True
    assert req.body["model"] == "claude-test-model"
    assert req.body["max_tokens"] == 123
    assert req.system == [
        {"type": "text", "text": "Stable tutor rules."},
        {"type": "text", "text": "Known facts: name Minji.", "cache_control": {"type": "ephemeral"}},
        {"type": "text", "text": "Learner emotion now: joy 0.8"},
        {"type": "text", "text": "late flag ignored"},
    ]
    assert req.messages == [
        {"role": "user", "content": "Hello"},
        {"role": "assistant", "content": "Hi! How are you?"},
        {"role": "user", "content": "Fine, thanks."},
    ]


def test_plain_string_system_is_sent_as_is(fake_anthropic):
    fake_anthropic.push("ok")
    list(make_model().stream("Just a prompt.", HI))
    assert fake_anthropic.last_request().system == "Just a prompt."


def test_rate_limit_then_success_is_retried_by_the_sdk(fake_anthropic):
    fake_anthropic.push(Reply(status=429, headers=QUICK_RETRY), Reply("Let's try again."))
    assert "".join(make_model().stream("s", HI)) == "Let's try again."
    assert len(fake_anthropic.requests) == 2
    # the SDK's own retry loop made the second attempt
    assert fake_anthropic.requests[1].headers.get("x-stainless-retry-count") == "1"


def test_rate_limit_after_all_retries(fake_anthropic):
    fake_anthropic.push(*[Reply(status=429, headers=QUICK_RETRY)] * 2)
    with pytest.raises(LLMRateLimitError, match="429"):
        list(make_model(max_retries=1).stream("s", HI))
    assert len(fake_anthropic.requests) == 2


def test_server_error_after_retries_is_unavailable(fake_anthropic):
    fake_anthropic.push(*[Reply(status=500, headers=QUICK_RETRY)] * 3)
    with pytest.raises(LLMUnavailableError, match="unavailable") as info:
        list(make_model(max_retries=2).stream("s", HI))
    assert not isinstance(info.value, LLMRateLimitError)
    assert len(fake_anthropic.requests) == 3


def test_overloaded_529(fake_anthropic):
    fake_anthropic.push(Reply(status=529, headers=QUICK_RETRY))
    with pytest.raises(LLMUnavailableError, match="529"):
        list(make_model(max_retries=0).stream("s", HI))


def test_timeout_before_any_response(fake_anthropic):
    fake_anthropic.push(Reply("late", headers_delay=30))
    with pytest.raises(LLMUnavailableError, match="timed out"):
        list(make_model(timeout_s=0.3, max_retries=0).stream("s", HI))


def test_stall_before_the_first_token_times_out(fake_anthropic):
    fake_anthropic.push(Reply("late", first_token_delay=30))
    with pytest.raises(LLMUnavailableError):
        list(make_model(timeout_s=0.3, max_retries=0).stream("s", HI))


def test_connection_refused(data_dir, monkeypatch):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", FAKE_API_KEY)
    with pytest.raises(LLMUnavailableError, match="cannot reach"):
        list(make_model(max_retries=0).stream("s", HI))


def test_rejected_key_is_an_auth_error_without_retries(fake_anthropic):
    fake_anthropic.push(Reply(status=401))
    with pytest.raises(LLMAuthError, match="^API key rejected"):
        list(make_model().stream("s", HI))
    assert len(fake_anthropic.requests) == 1


def test_unknown_model_is_a_request_error(fake_anthropic):
    fake_anthropic.push(Reply(status=404, error_message="model: claude-nope"))
    with pytest.raises(LLMRequestError, match="claude-nope"):
        list(make_model().stream("s", HI))


def test_errors_are_tutor_errors_with_one_line(fake_anthropic):
    fake_anthropic.push(Reply(status=500, error_message="boom\nsecond line", headers=QUICK_RETRY))
    with pytest.raises(TutorError) as info:
        list(make_model(max_retries=0).stream("s", HI))
    assert "\n" not in str(info.value)
    assert FAKE_API_KEY not in str(info.value)


def test_cancel_mid_stream_stops_early_and_closes_the_connection(fake_anthropic):
    words = [f"w{i} " for i in range(100)]
    fake_anthropic.push(Reply(tokens=words, token_delay=0.05))
    token = CancelToken()
    received = []
    for delta in make_model().stream("s", HI, cancel=token):
        received.append(delta)
        if len(received) == 3:
            token.cancel()
    assert received == words[:3]
    req = fake_anthropic.last_request()
    assert req.finished.wait(10)
    assert req.outcome == "client-gone"
    assert req.deltas_sent < len(words)


def test_cancelled_before_start_sends_nothing(fake_anthropic):
    token = CancelToken()
    token.cancel()
    assert list(make_model().stream("s", HI, cancel=token)) == []
    assert fake_anthropic.requests == []


def test_consumer_that_stops_iterating_closes_the_stream(fake_anthropic):
    words = [f"w{i} " for i in range(100)]
    fake_anthropic.push(Reply(tokens=words, token_delay=0.05))
    stream = make_model().stream("s", HI)
    assert next(stream) == "w0 "
    stream.close()
    req = fake_anthropic.last_request()
    assert req.finished.wait(10)
    assert req.outcome == "client-gone"


def test_stream_cut_mid_sentence_keeps_what_arrived(fake_anthropic):
    fake_anthropic.push(Reply(tokens=["I went ", "to the ", "market and ", "bought"], cut_after=2))
    received = []
    with pytest.raises(LLMStreamCutError, match="cut off") as info:
        for delta in make_model().stream("s", HI):
            received.append(delta)
    assert received == ["I went ", "to the "]
    assert info.value.partial_text == "I went to the "


def test_error_event_mid_stream_keeps_what_arrived(fake_anthropic):
    fake_anthropic.push(Reply(tokens=["Good ", "morning ", "to you"], error_event_after=1))
    with pytest.raises(LLMStreamCutError) as info:
        list(make_model().stream("s", HI))
    assert info.value.partial_text == "Good "


def test_error_event_before_any_text_is_unavailable(fake_anthropic):
    fake_anthropic.push(Reply("never sent", error_event_after=0))
    with pytest.raises(LLMUnavailableError, match="529"):
        list(make_model().stream("s", HI))


def test_empty_history_is_refused_before_sending(fake_anthropic):
    with pytest.raises(LLMRequestError):
        list(make_model().stream("s", [ChatMessage("user", "  ")]))
    assert fake_anthropic.requests == []


# -- complete_json ---------------------------------------------------------------------
def test_complete_json_fenced(fake_anthropic):
    fake_anthropic.push('```json\n{"name": "Minji", "interests": ["hiking"]}\n```')
    result = make_model().complete_json("Extract facts.", HI)
    assert result == {"name": "Minji", "interests": ["hiking"]}
    req = fake_anthropic.last_request()
    assert not req.stream
    assert "JSON object" in req.system
    assert req.system.startswith("Extract facts.")


def test_complete_json_wrapped_in_text(fake_anthropic):
    fake_anthropic.push('Here it is: {"occupation": "nurse"} - done.')
    assert make_model().complete_json("x", HI) == {"occupation": "nurse"}


def test_complete_json_retries_once_on_malformed(fake_anthropic):
    fake_anthropic.push("I cannot format that, sorry.", '{"name": "Jun"}')
    assert make_model().complete_json("x", HI) == {"name": "Jun"}
    assert len(fake_anthropic.requests) == 2
    retry = fake_anthropic.requests[1].messages
    assert retry[:-2] == [{"role": "user", "content": HI[0].content}]
    assert retry[-2] == {"role": "assistant", "content": "I cannot format that, sorry."}
    assert retry[-1]["role"] == "user" and "JSON" in retry[-1]["content"]


def test_complete_json_gives_up_after_one_retry(fake_anthropic):
    fake_anthropic.push("nope", "still nope")
    with pytest.raises(LLMBadJSONError) as info:
        make_model().complete_json("x", HI)
    assert info.value.raw == "still nope"
    assert len(fake_anthropic.requests) == 2


def test_complete_json_leaves_wrong_types_to_the_caller(fake_anthropic):
    fake_anthropic.push('{"name": 7, "interests": "music"}')
    assert make_model().complete_json("x", HI) == {"name": 7, "interests": "music"}


def test_complete_json_with_system_parts(fake_anthropic):
    fake_anthropic.push('{"ok": true}')
    make_model().complete_json([("Stable.", True), ("Dynamic.", False)], HI)
    system = fake_anthropic.last_request().system
    assert system[0] == {"type": "text", "text": "Stable.", "cache_control": {"type": "ephemeral"}}
    assert "JSON" in system[-1]["text"]


def test_complete_json_maps_errors(fake_anthropic):
    fake_anthropic.push(Reply(status=401))
    with pytest.raises(LLMAuthError):
        make_model().complete_json("x", HI)


def test_history_opening_with_the_tutor_gets_a_user_turn_first(fake_anthropic):
    fake_anthropic.push("Great to hear!")
    history = [ChatMessage("assistant", "Hi Minji, how did the interview go?"), ChatMessage("user", "Well!")]
    assert "".join(make_model().stream("s", history)) == "Great to hear!"
    sent = fake_anthropic.last_request().messages
    assert sent[0]["role"] == "user"
    assert sent[1:] == [{"role": "assistant", "content": "Hi Minji, how did the interview go?"},
                        {"role": "user", "content": "Well!"}]


def test_warm_up_builds_the_client_without_a_request(fake_anthropic):
    model = make_model()
    model.warm_up()
    assert fake_anthropic.requests == []
    fake_anthropic.push("ready")
    assert "".join(model.stream("s", HI)) == "ready"
