"""One streamed tutor reply: model stream -> sentence splitter -> parrot check -> the
per-sentence callback (TTS in a call). Each sentence is checked before it is released
(tutor/parrot.py): when the first one parrots the learner or the tutor's last reply, that
sample is dropped unheard and the turn is asked again (another sample, a shorter
prompt; not for a small local model, whose second sample is rarely better); when that
parrots too, a short honest fallback is said instead (tutor/recast.py).
A parroting sentence after the first is dropped. One echo is kept, turned round: the
learner's sentence said back with a small fix is a recast ("you ate", not "I ate").
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from tutor_app.core.cancel import TurnHandle
from tutor_app.core.protocols import ChatModel
from tutor_app.core.sentences import SentenceSplitter, is_clause
from tutor_app.errors import TutorError
from tutor_app.tutor.parrot import ECHO, ParrotCheck
from tutor_app.tutor.prompts import Prompt, PromptInputs, build_compact_prompt, build_prompt
from tutor_app.tutor.recast import fallback_reply, follow_up, greeting, name_answer, recast, repair
from tutor_app.tutor.turn import Generated, StageClock, problem_kind

log = logging.getLogger(__name__)

SORRY_OFFLINE = "Sorry, I lost my connection to the tutor model for a moment. Could you say that again?"
SORRY_EMPTY = "Sorry, I didn't catch that. Could you say it again?"
SORRY_KEY = "Sorry, I can't reach the tutor model: the API key was not accepted. Please check it in Settings."
SWITCHED = "My connection is slow, so I'll answer offline for now."
MAX_SENTENCES = 5  # the prompt asks for 1-3; a rambling model is cut here
COMPACT_SENTENCES = 3  # a small model's reply goes off topic after its first sentences
# A small local model writes ~25-40 tokens a second on a slow CPU: a long first sentence
# keeps the learner waiting while it is written (rare with the bundled model, whose first
# sentences are mostly short: README, "what the offline p95 is"). Its first clause of at
# least this many words goes out alone when `ParrotCheck.may_lead` takes it; the rest is
# written while it plays.
CLAUSE_WORDS = 6


@dataclass
class ReplyRequest:
    prompt: Prompt
    check: ParrotCheck | None = None  # None: every sentence goes out (crisis lines never come here)
    retry_prompt: Prompt | None = None  # the shorter prompt of the second sample
    fallback: str = ""  # said when every sample parroted (recast.fallback_reply)
    attempts: int = 2  # samples asked for before the fallback
    max_sentences: int = MAX_SENTENCES
    follow_up: str = ""  # the question after a recast made from an echo (recast.repair)
    lead: str = ""  # said before the model's reply: a small model's rule recast (recast.recast)
    answer: str = ""  # said instead of asking the model (recast.name_answer)
    first_clause_words: int = 0  # the first sentence may go out at a clause break (SentenceSplitter)


def reply_request(inputs: PromptInputs, compact: bool, turn_index: int) -> ReplyRequest:
    """This turn's prompt (the short one for a small local model), the shorter prompt of
    a second try, the lines a reply must not parrot and the fallback."""
    history = list(inputs.earlier) + list(inputs.history)
    check = ParrotCheck(
        learner=[inputs.user_text] + [m.content for m in reversed(history) if m.role == "user"],
        # A small model says its last reply again turn after turn; a cloud model does not,
        # and may well open two turns alike.
        tutor=[m.content for m in reversed(history) if m.role == "assistant"] if compact else [],
        names={str(inputs.profile.get("name") or "").strip()},
    )
    prompt = build_compact_prompt(inputs, turn=turn_index) if compact else build_prompt(inputs)
    # A small model's second sample (some temperature) is mostly off topic when its first
    # was unusable (bench tutor-quality): the honest fallback serves the learner better.
    request = ReplyRequest(prompt, check, build_compact_prompt(inputs, history=False),
                           fallback_reply(inputs.user_text, turn_index), attempts=1 if compact else 2,
                           follow_up=follow_up(turn_index, after_recast=True),
                           max_sentences=COMPACT_SENTENCES if compact else MAX_SENTENCES,
                           first_clause_words=CLAUSE_WORDS if compact else 0)
    if compact:
        # A small model rarely recasts, and invents the learner's name: what the rules
        # are sure of is said first (and at once), the model goes on after it.
        name = sorted(check.names)[0] if check.names else ""
        request.answer = name_answer(inputs.user_text, name) or ""
        request.lead = recast(inputs.user_text) or greeting(inputs.user_text) or ""
        if request.lead:
            request.fallback = request.follow_up
    return request


class _Rejected(Exception):
    """This sample's first sentence parroted: nothing of it was said."""


class _Done(Exception):
    """This sample said what the turn needs; the rest of it is not used."""


def generate(model_of: Callable[[], ChatModel], request: ReplyRequest,
             on_sentence: Callable[[str], None] | None, handle: TurnHandle, clock: StageClock,
             on_delta: Callable[[], Any] | None = None) -> Generated:
    """Stream the reply and hand out whole sentences as they end. Stops when the turn is
    cancelled (barge-in) or after `max_sentences` (a rambling model must not talk for
    minutes: the stream is closed, which ends generation). A failure becomes a problem
    kind and, when nothing was said yet, an apology that is spoken but never stored."""
    delivered: list[str] = []
    out = Generated()
    caught: list[str] = []  # the kinds of the sentences held back (logged as counts)

    def full() -> bool:
        """`max_sentences` said (a first clause said alone is not a sentence)."""
        return sum(not is_clause(s) for s in delivered) >= request.max_sentences

    def emit(sentence: str) -> None:
        if handle.cancelled or full():
            return
        if not delivered:
            clock.since_start("first_sentence")
        delivered.append(sentence)
        if on_sentence:
            on_sentence(sentence)

    def checked(sentence: str) -> None:
        check = request.check
        if check is None:
            emit(sentence)
            return
        verdict = check.check(sentence)
        if verdict is None:
            check.accept(sentence)
            emit(sentence)
            return
        caught.append(verdict.kind)
        first = len(delivered) == said_before
        fixed = repair(sentence, check.learner[0]) if verdict.kind == ECHO and verdict.line == 0 else None
        if fixed is not None and check.check(fixed) is None and not delivered:
            # The model corrected the learner's sentence as its own: said back, a recast.
            # What follows it is commentary on the correction; a question goes on instead.
            check.accept(fixed)
            emit(fixed)
            if request.follow_up:
                emit(request.follow_up)
            raise _Done
        if first:
            raise _Rejected(verdict.kind)

    def may_say(clause: str) -> bool:
        """A first clause goes out alone only when nothing in it may be the start of a
        parroting sentence; else its sentence is checked whole (an echo's recast is made
        from the whole sentence)."""
        return request.check is None or request.check.may_lead(clause)

    def splitter() -> SentenceSplitter:
        # The reply's first sentence however short ("Okay."): the learner hears the tutor sooner.
        return SentenceSplitter(first_min_chars=1, first_clause_words=request.first_clause_words,
                                clause_ok=may_say)

    for line in (request.answer or request.lead,):
        if line:
            emit(line)
            if request.check is not None:
                request.check.accept(line)
    said_before = len(delivered)  # the model's first sentence comes after these
    if request.answer:
        clock.mark("llm")
        out.text = " ".join(delivered)
        return out
    model: ChatModel | None = None
    try:
        model = model_of()
        out.backend = getattr(model, "name", "")
        for attempt in range(max(1, request.attempts)):
            prompt = request.prompt if attempt == 0 else (request.retry_prompt or request.prompt)
            try:
                _stream_one(model, prompt, attempt, checked, handle, clock, out, on_sentence, on_delta,
                            full, splitter())
                break
            except _Rejected:
                continue
            except _Done:
                break
        else:
            if request.fallback and not handle.cancelled:
                emit(request.fallback)  # every sample parroted: the honest short answer
        out.backend = getattr(model, "last_backend", None) or out.backend
        fallback = getattr(model, "last_fallback_reason", None)
        if fallback:
            # Answered by the local model: a notice, not a failure.
            out.fallback, out.problem, out.error = str(fallback), "fallback", f"offline: local tutor ({fallback})"
    except TutorError as exc:
        log.warning("tutor model failed: %s", type(exc).__name__)
        out.error = str(exc)
        if model is not None:
            out.backend = getattr(model, "last_backend", None) or out.backend
        if len(delivered) > said_before:
            out.problem = "cut"  # the learner heard part of a reply; the call loop ends it kindly
        elif caught and request.fallback and not handle.cancelled:
            emit(request.fallback)  # the retry failed after a parroting sample: still answer
            out.error = None
        else:
            out.problem = problem_kind(exc)
            if not handle.cancelled:
                out.apology = True
                emit(SORRY_KEY if out.problem == "api-key" else SORRY_OFFLINE)
    clock.mark("llm")
    if caught:
        log.info("reply check held back %d sentence(s): %s", len(caught), ",".join(caught))
    out.caught = len(caught)
    if said_before and len(delivered) == said_before and request.follow_up:
        emit(request.follow_up)  # only the recast was said: a question keeps the call going
    if not delivered and not handle.cancelled:
        out.apology = True
        emit(SORRY_EMPTY)  # the model returned nothing: never leave the learner hanging
    out.text, out.interrupted = " ".join(delivered), handle.cancelled
    return out


def _stream_one(model: ChatModel, prompt: Prompt, attempt: int, checked: Callable[[str], None],
                handle: TurnHandle, clock: StageClock, out: Generated,
                on_sentence: Callable[[str], None] | None, on_delta: Callable[[], Any] | None,
                full: Callable[[], bool], splitter: SentenceSplitter) -> None:
    """One sample, each sentence through `checked` (which raises _Rejected to drop it)."""
    stream = _open(model, prompt, attempt, handle)
    try:
        for delta in stream:
            if handle.cancelled or full():
                return
            if "first_token" not in clock.timings:
                clock.since_start("first_token")
                if getattr(model, "last_switched", False) and on_sentence and not handle.cancelled:
                    out.notice = SWITCHED  # heard once, at the switch; not part of the reply
                    on_sentence(SWITCHED)
            for sentence in splitter.feed(delta):
                checked(sentence)
            if on_delta:
                on_delta()
        for sentence in splitter.flush():
            checked(sentence)
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()  # ends generation when we stopped early


def _open(model: ChatModel, prompt: Prompt, attempt: int, handle: TurnHandle) -> Iterator[str]:
    """The first sample as the model gives it; a later one through `model.sample` where the
    model has it (another seed and some temperature: greedy decoding would say the same)."""
    sample = getattr(model, "sample", None) if attempt else None
    if sample is not None:
        stream: Iterator[str] = sample(prompt.system_parts, prompt.messages, handle, attempt)
        return stream
    return model.stream(prompt.system_parts, prompt.messages, handle)
