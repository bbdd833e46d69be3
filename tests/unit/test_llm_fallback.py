"""Cloud-to-local fallback: the real Anthropic backend against the fake API, with a
scripted local model at the seam (the local backend has its own integration test)."""
from __future__ import annotations

import pytest

from tests.fakes.anthropic_server import Reply
from tutor_app.core.cancel import CancelToken
from tutor_app.core.types import ChatMessage
from tutor_app.errors import ModelMissingError
from tutor_app.llm.anthropic_backend import AnthropicChatModel, AnthropicOptions
from tutor_app.llm.errors import LLMAuthError, LLMStreamCutError, LLMUnavailableError
from tutor_app.llm.fallback import FallbackChatModel

HI = [ChatMessage("user", "Hello")]


class ScriptedLocal:
    name = "local:scripted"

    def __init__(self) -> None:
        self.calls: list[tuple[object, list[ChatMessage]]] = []

    def stream(self, system, messages, cancel=None):
        self.calls.append((system, list(messages)))
        yield from ["Local ", "reply."]

    def complete_json(self, system, messages):
        self.calls.append((system, list(messages)))
        return {"from": "local"}


@pytest.fixture
def local():
    return ScriptedLocal()


def make(local, builds=None, **options) -> FallbackChatModel:
    cloud = AnthropicChatModel(AnthropicOptions(max_retries=0, timeout_s=5.0, stream_max_retries=0))

    def make_local():
        if builds is not None:
            builds.append(1)
        return local

    return FallbackChatModel(cloud, make_local, **{"rest_s": 0.0, **options})


def test_cloud_answer_needs_no_fallback(fake_anthropic, local):
    fake_anthropic.push("Cloud reply.")
    builds: list[int] = []
    model = make(local, builds)
    assert "".join(model.stream("s", HI)) == "Cloud reply."
    assert model.last_fallback_reason is None
    assert model.last_backend.startswith("anthropic:")
    assert builds == []  # the local model is not even built


def test_server_error_before_any_text_falls_back(fake_anthropic, local):
    fake_anthropic.push(Reply(status=500))
    model = make(local)
    system = [("stable", True), ("turn", False)]
    assert "".join(model.stream(system, HI)) == "Local reply."
    assert "unavailable" in model.last_fallback_reason
    assert model.last_backend == "local:scripted"
    assert local.calls == [(system, HI)]  # the same turn, unchanged


def test_next_turn_tries_the_cloud_again(fake_anthropic, local):
    fake_anthropic.push(Reply(status=503), "Back online.")
    builds: list[int] = []
    model = make(local, builds)
    assert "".join(model.stream("s", HI)) == "Local reply."
    assert "".join(model.stream("s", HI)) == "Back online."
    assert model.last_fallback_reason is None
    assert len(builds) == 1


def test_timeout_falls_back(fake_anthropic, local):
    fake_anthropic.push(Reply("late", headers_delay=30))
    model = FallbackChatModel(AnthropicChatModel(AnthropicOptions(stream_max_retries=0, stream_timeout_s=0.3)),
                              lambda: local)
    assert "".join(model.stream("s", HI)) == "Local reply."
    assert "timed out (0.3 s)" in model.last_fallback_reason
    assert "retried" not in model.last_fallback_reason  # no retry was made: none is claimed


def test_a_stalled_cloud_is_given_up_at_the_first_token_budget(fake_anthropic, local):
    """No response headers at all: the voice turn's budget, not the client's timeouts, ends
    the wait; the learner is told once (last_switched) and the local model answers."""
    fake_anthropic.push(Reply("late", headers_delay=120))
    model = make(local, first_token_s=0.2)
    assert "".join(model.stream("s", HI)) == "Local reply."
    assert "no answer from anthropic:" in model.last_fallback_reason and "within 0.2 s" in model.last_fallback_reason
    assert model.last_switched


def test_after_a_failure_the_cloud_rests_then_is_tried_again(fake_anthropic, local):
    now = [0.0]
    fake_anthropic.push(Reply(status=503), "Back online.")
    model = make(local, rest_s=60.0, clock=lambda: now[0])
    assert "".join(model.stream("s", HI)) == "Local reply." and model.last_switched
    sent = len(fake_anthropic.requests)
    now[0] = 30.0  # resting: straight to the local model, no request, no new notice
    assert "".join(model.stream("s", HI)) == "Local reply."
    assert len(fake_anthropic.requests) == sent and not model.last_switched
    assert model.last_fallback_reason  # still answered locally: the UI keeps its notice
    now[0] = 61.0
    assert "".join(model.stream("s", HI)) == "Back online."
    assert model.last_fallback_reason is None


def test_an_error_event_inside_a_stream_claims_no_retries(fake_anthropic):
    import anthropic
    import httpx2 as httpx  # the SDK's HTTP client

    from tutor_app.llm.anthropic_backend import map_api_error

    request = httpx.Request("POST", "http://x/v1/messages")
    inside = anthropic.APIStatusError("overloaded", response=httpx.Response(200, request=request),
                                      body={"type": "error", "error": {"type": "overloaded_error"}})
    assert "retried" not in str(map_api_error(inside, AnthropicOptions(max_retries=2)))
    before = anthropic.InternalServerError("boom", response=httpx.Response(500, request=request), body=None)
    assert "retried up to 2 times" in str(map_api_error(before, AnthropicOptions(max_retries=2)))


def test_rejected_key_never_falls_back(fake_anthropic, local):
    fake_anthropic.push(Reply(status=401))
    model = make(local)
    with pytest.raises(LLMAuthError, match="API key rejected"):
        list(model.stream("s", HI))
    assert local.calls == []


def test_break_after_text_is_not_replayed(fake_anthropic, local):
    fake_anthropic.push(Reply(tokens=["Half ", "a ", "sentence"], cut_after=2))
    model = make(local)
    got = []
    with pytest.raises(LLMStreamCutError) as info:
        for delta in model.stream("s", HI):
            got.append(delta)
    assert got == ["Half ", "a "]
    assert info.value.partial_text == "Half a "
    assert local.calls == []


def test_cancelled_turn_does_not_fall_back(fake_anthropic, local):
    token = CancelToken()
    token.cancel()
    assert list(make(local).stream("s", HI, cancel=token)) == []
    assert local.calls == []


def test_a_turn_cancelled_while_the_cloud_is_silent_neither_waits_nor_falls_back(fake_anthropic, local):
    """The learner talks on (or barges in) before the first token: the wait ends then, not at
    the budget, and a cancelled turn is no failure (the local model stays unloaded)."""
    import threading

    fake_anthropic.push(Reply("Too late.", first_token_delay=30))
    token = CancelToken()
    model = make(local, first_token_s=60.0)
    threading.Thread(target=lambda: fake_anthropic.wait_requests(1) and token.cancel(), daemon=True).start()
    assert list(model.stream("s", HI, cancel=token)) == []
    assert local.calls == [] and model.last_fallback_reason is None and not model.last_switched


def test_missing_local_model_raises_the_cloud_error(fake_anthropic):
    fake_anthropic.push(Reply(status=500))

    def missing():
        raise ModelMissingError("not installed: run `tutor-app models install smollm2-135m-instruct`")

    model = FallbackChatModel(AnthropicChatModel(AnthropicOptions(max_retries=0, stream_max_retries=0)), missing)
    with pytest.raises(LLMUnavailableError, match="unavailable"):
        list(model.stream("s", HI))


def test_complete_json_falls_back(fake_anthropic, local):
    fake_anthropic.push(Reply(status=500))
    model = make(local)
    assert model.complete_json("extract", HI) == {"from": "local"}
    assert model.last_fallback_reason


def test_complete_json_from_the_cloud(fake_anthropic, local):
    fake_anthropic.push('{"from": "cloud"}')
    model = make(local)
    assert model.complete_json("extract", HI) == {"from": "cloud"}
    assert model.last_fallback_reason is None


def test_fallback_reason_is_per_thread(fake_anthropic, local):
    import threading

    fake_anthropic.push(Reply(status=500))
    model = make(local)
    assert "".join(model.stream("s", HI)) == "Local reply."
    seen = []
    worker = threading.Thread(target=lambda: seen.append(model.last_fallback_reason))
    worker.start()
    worker.join()
    assert seen == [None]  # another thread's call did not fall back
    assert model.last_fallback_reason


class SmallLocal(ScriptedLocal):
    compact_prompt = True

    def sample(self, system, messages, cancel, attempt):
        self.calls.append((system, list(messages)))
        yield from ["Another ", f"sample {attempt}."]


def test_a_second_sample_comes_from_the_model_that_answered(fake_anthropic):
    small = SmallLocal()
    fake_anthropic.push(Reply(status=500))
    model = make(small, rest_s=60.0)
    assert not model.compact_prompt  # the cloud gets the full prompt
    assert "".join(model.stream("s", HI)) == "Local reply."
    assert "".join(model.sample("s", HI, None, 1)) == "Another sample 1."  # not the cloud again
    assert model.compact_prompt  # while the cloud rests, the small local model answers: its short prompt
    fake_anthropic.push("Cloud reply.", "Cloud again.")
    cloud_first = make(SmallLocal())
    assert "".join(cloud_first.stream("s", HI)) == "Cloud reply."
    assert "".join(cloud_first.sample("s", HI, None, 1)) == "Cloud again."
