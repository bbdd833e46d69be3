"""The settings file, checked before its values are used (issue #33).

A file that cannot be read, and a value of the wrong type where the app needs a table or
a name (`llm = 5`, `profile = 7`, `speech.silence_ms = "slow"`), are the same fault: the
file is set aside (renamed `settings.toml.damaged-<time>`, never overwritten), what could
be read is written back without the bad values (they are back to their defaults), and
one warning says so and what to do. The next start finds a sound file and says nothing.
Unknown keys are not damage (a newer version's file): they stay, with their own warning.
"""
from __future__ import annotations

import logging
import os
import time
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)


def read_settings_file(path: Path, defaults: Any, sections: tuple[str, ...]) -> dict[str, Any]:
    """The file's values with every wrong-typed one removed ({} for a file that cannot be
    read). `defaults` is a Settings object whose sections give the expected types."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        _set_aside(path, f"it cannot be read ({type(exc).__name__})", None)
        return {}
    problems = _remove_wrong_types(data, defaults, sections)
    if problems:
        _set_aside(path, f"wrong types: {', '.join(problems)}", data)
    return data


def _remove_wrong_types(data: dict[str, Any], defaults: Any, sections: tuple[str, ...]) -> list[str]:
    from tutor_app.paths import MAX_PROFILE_CHARS

    problems = []
    profile = data.get("profile")
    if "profile" in data and not (isinstance(profile, str) and profile.strip() and len(profile) <= MAX_PROFILE_CHARS
                                  and profile.isprintable()):
        problems.append("profile")
        del data["profile"]
    for name in sections:
        if name not in data:
            continue
        section = data[name]
        if not isinstance(section, dict):
            problems.append(name)
            del data[name]
            continue
        expected = {f.name: getattr(getattr(defaults, name), f.name) for f in fields(getattr(defaults, name))}
        for key in [k for k in section if k in expected and not _fits(section[k], expected[k])]:
            problems.append(f"{name}.{key}")
            del section[key]
    return problems


def _fits(value: Any, default: Any) -> bool:
    """The same rule the settings use: a bool is not a number, an int is fine for a float."""
    if isinstance(default, bool) or isinstance(value, bool):
        return isinstance(default, bool) and isinstance(value, bool)
    return isinstance(value, type(default)) or (isinstance(default, float) and isinstance(value, int))


def _set_aside(path: Path, why: str, kept: dict[str, Any] | None) -> None:
    """Rename the damaged file and write back what was kept; one warning either way."""
    aside = path.with_name(f"{path.name}.damaged-{time.strftime('%Y%m%d-%H%M%S')}")
    try:
        os.replace(path, aside)
    except OSError as exc:
        log.warning("the settings file %s is damaged (%s) and cannot be set aside (%s): those values are "
                    "back to their defaults for this run; fix or remove the file", path, why, exc.strerror or exc)
        return
    rest = "the other settings were kept; " if kept else "all settings are back to their defaults; "
    if kept:
        _write(path, kept)
    log.warning("the settings file %s was damaged (%s): it was set aside as %s and %s"
                "choose your settings again in the app's Settings window (or edit the file)",
                path, why, aside.name, rest)


def _write(path: Path, data: dict[str, Any]) -> None:
    import tomli_w

    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_bytes(tomli_w.dumps(data).encode("utf-8"))
        os.replace(tmp, path)
    except (OSError, TypeError, ValueError):
        tmp.unlink(missing_ok=True)  # the defaults are used; the set-aside file still holds everything
