"""Errors the user can act on: the CLI prints the message as one line, exit code 1."""


class TutorError(Exception):
    """A failure with a message meant for the learner, not a traceback."""


class UsageError(TutorError):
    """Bad arguments: exit code 2."""


class ModelMissingError(TutorError):
    """A model the command needs is not installed."""


class ModelCorruptError(ModelMissingError):
    """A model's files fail their checksum and no intact copy exists: refused, never used."""


class AudioInputError(TutorError):
    """Audio that cannot be read, is empty, or is too long."""


def error_text(exc: BaseException) -> str:
    """One line for the learner: the message of our own errors, the type otherwise."""
    if isinstance(exc, TutorError):
        return str(exc)
    msg = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {msg}" if msg else type(exc).__name__
