"""The system prompt as parts, so a backend can cache the stable prefix.

`stream` / `complete_json` accept the system prompt either as one string or as a
sequence of `(text, cacheable)` parts (`SystemPart` is such a tuple). Cacheable parts
belong first: instructions and memories that stay the same for a whole call, then the
per-turn parts (emotion, recalled items). The Anthropic backend puts one prompt-cache
breakpoint after the leading run of cacheable parts; a cacheable flag after a
non-cacheable part is ignored because its prefix changes every turn anyway. A plain
string is sent uncached. Local models join the parts and keep the leading cacheable run
evaluated in llama.cpp's cache (llm/prefix_cache.py).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Union


class SystemPart(NamedTuple):
    text: str
    cacheable: bool = False


SystemPrompt = Union[str, Sequence[tuple[str, bool]]]

PART_SEPARATOR = "\n\n"


def system_parts(system: SystemPrompt) -> list[SystemPart]:
    if isinstance(system, str):
        return [SystemPart(system, False)] if system else []
    parts = []
    for item in system:
        if isinstance(item, str):  # tolerate a bare string among the parts
            item = (item, False)
        text, cacheable = item
        if text:
            parts.append(SystemPart(str(text), bool(cacheable)))
    return parts


def system_text(system: SystemPrompt) -> str:
    """The whole prompt as one string (for local models)."""
    if isinstance(system, str):
        return system
    return PART_SEPARATOR.join(p.text for p in system_parts(system))


def anthropic_system(system: SystemPrompt) -> str | list[dict[str, Any]]:
    """The Messages API `system` value, with cache_control after the stable prefix."""
    if isinstance(system, str):
        return system
    parts = system_parts(system)
    blocks: list[dict[str, Any]] = [{"type": "text", "text": p.text} for p in parts]
    stable = 0
    while stable < len(parts) and parts[stable].cacheable:
        stable += 1
    if stable:
        blocks[stable - 1]["cache_control"] = {"type": "ephemeral"}
    return blocks
