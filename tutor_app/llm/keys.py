"""The Anthropic API key: environment first, then the OS keyring; never in a file.

Service "tutor-app", username "anthropic_api_key". A machine without a usable keyring
backend (headless Linux, CI) simply has no stored key: reading returns None, storing
raises an `LLMKeyStoreError` that says so. A key entered there anyway (`store_api_key`)
is kept in this process's memory for this run only; KEEP_HINT says how to keep it.
Keys are never logged.
"""
from __future__ import annotations

import logging
import os
import threading

from tutor_app.llm.errors import LLMError

log = logging.getLogger(__name__)

SERVICE = "tutor-app"
USERNAME = "anthropic_api_key"
ENV_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")  # what the SDK itself reads
KEEP_HINT = ("There is no system keyring to keep it: it is used until Tutor closes. To keep it, "
             "set it before starting Tutor: export ANTHROPIC_API_KEY=sk-ant-…")


class _RunKey:
    """A key entered in this run that no keyring could keep: memory only, this process only.
    `changes` counts every change of the key in this process (saved, kept, removed), so a
    tutor model chosen before it can tell that it is out of date without asking the keyring."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.value: str | None = None
        self.changes = 0


_RUN = _RunKey()


class LLMKeyStoreError(LLMError):
    """The key could not be saved or deleted in the OS keyring."""


def env_api_key() -> str | None:
    for name in ENV_KEYS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def get_api_key() -> str | None:
    """The key kept for this run, else the one stored in the OS keyring, else None (also
    when there is no keyring)."""
    with _RUN.lock:
        if _RUN.value:
            return _RUN.value
    try:
        import keyring

        value = keyring.get_password(SERVICE, USERNAME)
    except Exception as exc:  # noqa: BLE001 - NoKeyringError, D-Bus failures, locked stores...
        log.debug("keyring unavailable: %s", type(exc).__name__)
        return None
    return value.strip() if value and value.strip() else None


def set_api_key(key: str) -> None:
    key = (key or "").strip()
    if not key:
        raise LLMKeyStoreError("the API key is empty")
    try:
        import keyring

        keyring.set_password(SERVICE, USERNAME, key)
    except Exception as exc:  # noqa: BLE001
        raise LLMKeyStoreError(f"cannot store the API key in the OS keyring ({_why(exc)})") from None
    _set_run_key(None)  # the keyring has the newest key now


def store_api_key(key: str) -> bool:
    """Save the key in the OS keyring (True). Without a usable keyring, keep it in this
    process's memory for this run only (False: tell the learner KEEP_HINT)."""
    key = (key or "").strip()
    try:
        set_api_key(key)
        return True
    except LLMKeyStoreError:
        if not key:
            raise
    _set_run_key(key)
    log.info("no keyring: the API key is kept in memory for this run only")
    return False


def key_changes() -> int:
    """How many times the key changed in this process (cheap: no keyring call)."""
    with _RUN.lock:
        return _RUN.changes


def _set_run_key(key: str | None) -> None:
    """Every caller changed the key (saved, kept or removed it)."""
    with _RUN.lock:
        _RUN.changes += 1
        _RUN.value = key


def delete_api_key() -> bool:
    """Remove the stored key (and the one kept for this run); False when there was none."""
    with _RUN.lock:
        had_run_key = _RUN.value is not None
    _set_run_key(None)
    try:
        import keyring
        from keyring.errors import PasswordDeleteError

        try:
            keyring.delete_password(SERVICE, USERNAME)
        except PasswordDeleteError:
            return had_run_key
    except Exception as exc:  # noqa: BLE001
        if had_run_key:
            return True  # no keyring at all: the run's key was the only one
        raise LLMKeyStoreError(f"cannot delete the API key from the OS keyring ({_why(exc)})") from None
    return True


def has_api_key() -> bool:
    """True when a key is configured in the environment or the keyring."""
    return env_api_key() is not None or get_api_key() is not None


def key_source() -> str:
    """'env', 'run' (kept for this run, no keyring), 'keyring' or '' (for `doctor` and the
    settings panel; never the key itself)."""
    if env_api_key() is not None:
        return "env"
    with _RUN.lock:
        if _RUN.value:
            return "run"
    return "keyring" if get_api_key() is not None else ""


def _why(exc: Exception) -> str:
    name = type(exc).__name__
    return "no keyring backend on this system" if name == "NoKeyringError" else name
