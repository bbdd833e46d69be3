"""LLM failures the learner (or the engine) can act on, one class per cause.

All subclass `tutor_app.errors.TutorError`, so the CLI prints the message as one line.
The engine tells them apart: `LLMAuthError` means "fix the key", `LLMUnavailableError`
(and its subclass `LLMRateLimitError`) means "try later or fall back to the local
model", `LLMStreamCutError` means part of the reply arrived (`partial_text`).
"""
from __future__ import annotations

from tutor_app.errors import TutorError


class LLMError(TutorError):
    """Any failure of the tutor model."""


class LLMAuthError(LLMError):
    """No key, or the key was rejected (401/403): the user must fix it; never falls back."""


class LLMUnavailableError(LLMError):
    """Connection error, timeout or server error (5xx) after the SDK's own retries."""


class LLMRateLimitError(LLMUnavailableError):
    """Still rate limited (429) after the SDK's own retries."""


class LLMRequestError(LLMError):
    """The API refused the request itself (400/404/413...): a bug or a bad model name."""


class LLMStreamCutError(LLMError):
    """The reply stream broke after some text had arrived; `partial_text` holds it."""

    def __init__(self, message: str, partial_text: str = "") -> None:
        super().__init__(message)
        self.partial_text = partial_text


class LLMBadJSONError(LLMError):
    """The model did not produce a JSON object, even after one retry; `raw` is its last reply."""

    def __init__(self, message: str, raw: str = "") -> None:
        super().__init__(message)
        self.raw = raw
