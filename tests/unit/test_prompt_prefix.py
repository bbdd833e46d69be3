"""The stable start of the tutor prompt: what every turn of a call begins with, marked
cacheable, so a local model keeps it evaluated (llm/prefix_cache.py) and a call can
evaluate it ahead (prompts.stable_system)."""
from __future__ import annotations

from tutor_app.core.types import ChatMessage, EmotionScore
from tutor_app.llm.prefix_cache import common_prefix, probe_chat, stable_text
from tutor_app.llm.system import system_text
from tutor_app.settings import TutorSettings
from tutor_app.tutor.prompts import (
    PromptInputs,
    RecalledItem,
    build_compact_prompt,
    build_prompt,
    compact_window,
    stable_system,
)


def _inputs(**kw) -> PromptInputs:
    base = dict(tutor=TutorSettings(level="beginner", topic="travel"), user_text="I go to airport yesterday.",
                profile={"name": "Minji"}, practice_plan="Practise past tense today.")
    base.update(kw)
    return PromptInputs(**base)


def test_every_turn_starts_with_the_stable_system_of_the_call():
    start = _inputs(user_text="")
    for compact in (False, True):
        stable = system_text(stable_system(start, compact))
        assert stable and all(cacheable for _, cacheable in stable_system(start, compact))
        for turn in (_inputs(), _inputs(user_text="Hello", recalled=[RecalledItem("I love lattes")],
                                        emotion=EmotionScore("joy", 0.9), guardrail_instruction="Be gentle.",
                                        history=[ChatMessage("user", "Hi"), ChatMessage("assistant", "Hello!")])):
            prompt = build_compact_prompt(turn) if compact else build_prompt(turn)
            assert prompt.system.startswith(stable)
    assert "Practise past tense" in system_text(stable_system(start, False))


def test_what_changes_every_turn_comes_after_what_stays_for_the_call():
    p = build_prompt(_inputs(recalled=[RecalledItem("I love lattes")], session_notes=["Minji has a cold today."],
                             emotion=EmotionScore("sadness", 0.7)))
    text = p.system
    assert text.index("Practise past tense") < text.index("Minji") < text.index("has a cold") \
        < text.index("lattes") < text.index("sadness")


def test_a_care_instruction_is_not_part_of_the_small_models_stable_start():
    p = build_compact_prompt(_inputs(guardrail_instruction="Acknowledge the feeling."))
    assert p.system_parts[0][1] and "Acknowledge" not in p.system_parts[0][0]
    assert p.system_parts[-1] == ("Acknowledge the feeling.", False)
    assert stable_text(p.system_parts) == (p.system_parts[0][0], False)


def test_the_probe_chat_ends_where_requests_differ():
    assert probe_chat("plain text, nothing cached", "A") is None
    whole = probe_chat([("rules", True)], "A")
    assert whole == [{"role": "system", "content": "rules"}, {"role": "user", "content": "A"}]
    assert probe_chat([("rules", True), ("this turn", False)], "A") == [{"role": "system", "content": "rules\n\nA"}]
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2 and common_prefix([], [1]) == 0


def test_the_small_models_history_window_moves_two_exchanges_at_a_time():
    said = [ChatMessage("assistant", "Hi! How was your day?")]  # the greeting
    starts = []
    for turn in range(8):
        window = compact_window(said, turn)
        assert len(window) <= 4 and window == said[-len(window):]  # the newest messages, at most two exchanges
        starts.append(len(said) - len(window))
        said += [ChatMessage("user", f"line {turn}"), ChatMessage("assistant", f"reply {turn}")]
    # An odd turn's window starts where the turn before started: only the newest exchange is new.
    assert all(starts[t] == starts[t - 1] for t in range(1, 8, 2))
    assert compact_window(said) == said[-4:]  # without the turn's number: the last two exchanges
