"""The first-token wait of a voice turn (llm/first_token.py): a turn cancelled while it
waits ends the wait at once, with no deltas and no failure; deltas still flow otherwise."""
from __future__ import annotations

import threading
from collections.abc import Iterator

from tutor_app.call.tutor_turn import RESUMED, TurnControl
from tutor_app.core.cancel import Cancellable, CancelToken
from tutor_app.llm.first_token import within_deadline

# Far longer than a test may take: reaching it fails the test (LLMUnavailableError).
BUDGET_S = 60.0


def _silent_server(cancel_first, seen: list[Cancellable], release: threading.Event):
    """A request that never answers; `cancel_first()` runs once it is sent (the learner
    talks on, or barges in, while the tutor model is still silent)."""

    def start(token: Cancellable) -> Iterator[str]:
        seen.append(token)
        cancel_first()
        release.wait()  # the HTTP read that never returns, until the test ends
        yield "too late"

    return start


def test_a_cancelled_token_ends_the_wait_without_deltas():
    token, seen, release = CancelToken(), [], threading.Event()
    try:
        assert list(within_deadline(_silent_server(token.cancel, seen, release), BUDGET_S, token)) == []
        assert seen[0].cancelled  # the abandoned request is told to stop too
    finally:
        release.set()


def test_a_retracted_speculative_turn_ends_the_wait():
    turn = TurnControl().begin(speculative=True)
    seen: list[Cancellable] = []
    release = threading.Event()
    try:
        stream = within_deadline(_silent_server(lambda: turn.cancel(RESUMED), seen, release), BUDGET_S, turn)
        assert list(stream) == [] and turn.retracted
    finally:
        release.set()


def test_a_live_turn_gets_every_delta():
    turn = TurnControl().begin()
    assert list(within_deadline(lambda token: iter(["Nice ", "to ", "meet you."]), BUDGET_S, turn)) == [
        "Nice ", "to ", "meet you."]
    assert not turn.cancelled


def test_a_turn_cancelled_after_its_first_token_is_read_between_deltas():
    token = CancelToken()

    def start(cancel: Cancellable) -> Iterator[str]:
        yield "First."
        token.cancel()  # barge-in while the reply streams
        if not cancel.cancelled:
            yield "Never heard."

    assert list(within_deadline(start, BUDGET_S, token)) == ["First."]
