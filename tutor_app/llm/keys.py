"""The Anthropic API key: environment first, then the OS keyring; never in a file.

Service "tutor-app", username "anthropic_api_key". A machine without a usable keyring
backend (headless Linux, CI) simply has no stored key: reading returns None, storing
raises an `LLMKeyStoreError` that says so. Keys are never logged.
"""
from __future__ import annotations

import logging
import os

from tutor_app.llm.errors import LLMError

log = logging.getLogger(__name__)

SERVICE = "tutor-app"
USERNAME = "anthropic_api_key"
ENV_KEYS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")  # what the SDK itself reads


class LLMKeyStoreError(LLMError):
    """The key could not be saved or deleted in the OS keyring."""


def env_api_key() -> str | None:
    for name in ENV_KEYS:
        value = os.environ.get(name, "").strip()
        if value:
            return value
    return None


def get_api_key() -> str | None:
    """The key stored in the OS keyring, or None (also when there is no keyring)."""
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


def delete_api_key() -> bool:
    """Remove the stored key; False when there was none."""
    try:
        import keyring
        from keyring.errors import PasswordDeleteError

        try:
            keyring.delete_password(SERVICE, USERNAME)
        except PasswordDeleteError:
            return False
    except Exception as exc:  # noqa: BLE001
        raise LLMKeyStoreError(f"cannot delete the API key from the OS keyring ({_why(exc)})") from None
    return True


def has_api_key() -> bool:
    """True when a key is configured in the environment or the keyring."""
    return env_api_key() is not None or get_api_key() is not None


def key_source() -> str:
    """'env', 'keyring' or '' (for `doctor` and the settings panel; never the key itself)."""
    if env_api_key() is not None:
        return "env"
    return "keyring" if get_api_key() is not None else ""


def _why(exc: Exception) -> str:
    name = type(exc).__name__
    return "no keyring backend on this system" if name == "NoKeyringError" else name
