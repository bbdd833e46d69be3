"""A memory deleted while its call is still running (the GUI's memory panel during a
call): the exchange leaves what the call holds in memory and is never sent again."""
from __future__ import annotations

import json

import pytest

from tests.fakes.anthropic_server import Reply
from tests.integration.test_tutor_engine import make_engine  # noqa: F401 (fixture)
from tests.memory_fixtures import secret_pattern

pytestmark = pytest.mark.slow


def test_a_deleted_exchange_leaves_the_running_call(make_engine, fake_anthropic):  # noqa: F811
    fake_anthropic.push(Reply("Nice to meet you!"), Reply("Okay, I will remember your PIN 4921."),
                        Reply("Jazz is great."), Reply("You told me you like jazz."))
    engine = make_engine()
    call = engine.start_call("live-1")
    call.turn("Hi, I'm Minji.")
    stored = call.turn("My bank PIN is 4921, remember that.").stored
    assert stored
    call.turn("Do you remember my PIN? I also like jazz.")
    engine.services.memory.delete(stored[0])

    assert all("4921" not in t.user_text + t.reply for t in call.turns)
    assert all("4921" not in u + r for u, r in engine.stm.session("live-1").turns())
    call.turn("What did I just tell you?")
    sent = json.dumps(fake_anthropic.last_request().body)
    assert not secret_pattern("4921").search(sent.encode()) and "jazz" in sent  # not inside a random id

    engine.services.memory.for_profile("bob").clear()  # another profile: this call keeps its turns
    assert len(call.turns) == 3  # four turns, the deleted one gone
    engine.services.memory.clear()
    assert call.turns == [] and engine.stm.peek("live-1") is None
