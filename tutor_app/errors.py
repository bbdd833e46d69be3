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
