"""Logging: one logger per module, a rotating log file in the data dir, quiet stderr."""
from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging(log_file: Path | None, debug: bool = False) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_tutor_app", False):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    console = _QuietStreamHandler()
    console.setLevel(logging.DEBUG if debug else logging.WARNING)
    console_format = "tutor-app: %(levelname)s: %(message)s"
    console.setFormatter(logging.Formatter(console_format) if debug else _OneLineFormatter(console_format))
    console._tutor_app = True  # type: ignore[attr-defined]
    console.addFilter(_PRIVACY)  # also when the log file cannot be opened (early return below)
    root.addHandler(console)
    if log_file is not None:
        try:
            log_file.parent.mkdir(parents=True, exist_ok=True)
            handler = _QuietFileHandler(log_file, maxBytes=2_000_000, backupCount=3, encoding="utf-8")
        except OSError:
            return  # an unwritable data dir is reported by the command that needs it
        _private(log_file)
        handler.setFormatter(logging.Formatter(_FORMAT))
        handler._tutor_app = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    # Third-party libraries are chatty at INFO; the HTTP and model-SDK ones log whole
    # request bodies (what the learner said) at DEBUG: kept at WARNING even with --debug.
    for noisy in ("faster_whisper", "sentence_transformers", "transformers", "lancedb", "filelock",
                  "huggingface_hub", *BODY_LOGGERS):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    for h in root.handlers:
        if getattr(h, "_tutor_app", False):
            h.addFilter(_PRIVACY)


class _QuietOnOSError:
    """A log line that cannot be written (a full disk, a closed stderr) is dropped quietly:
    Python's default prints "--- Logging error ---" and a traceback over the one line the
    command itself prints about the disk. Other errors (a bad format) are still shown."""

    def handleError(self, record: logging.LogRecord) -> None:  # noqa: N802 - logging's name
        if isinstance(sys.exc_info()[1], OSError):
            return
        super().handleError(record)  # type: ignore[misc]

    def flush(self) -> None:  # also called by close(): at exit, and when logging is set up again
        try:
            super().flush()  # type: ignore[misc]
        except OSError:
            pass


class _OneLineFormatter(logging.Formatter):
    """stderr without --debug: a record's traceback becomes its error's one line (no source
    paths); the log file keeps the traceback."""

    def format(self, record: logging.LogRecord) -> str:
        from tutor_app.errors import error_text
        from tutor_app.storage_errors import without_source_paths

        saved = record.exc_info, record.exc_text, record.stack_info
        exc = record.exc_info[1] if record.exc_info else None
        record.exc_info, record.exc_text, record.stack_info = None, None, None
        try:
            line = super().format(record)
        finally:
            record.exc_info, record.exc_text, record.stack_info = saved
        return f"{line} ({without_source_paths(error_text(exc))})" if exc is not None else line


class _QuietFileHandler(_QuietOnOSError, logging.handlers.RotatingFileHandler):
    pass


class _QuietStreamHandler(_QuietOnOSError, logging.StreamHandler):
    pass


# Loggers of libraries that can log request/response bodies. The anthropic SDK sets its
# own level from ANTHROPIC_LOG, so a handler filter drops their lower records too. The
# installed HTTP client logs as "httpx2"/"httpcore2" (a renamed fork; a plain "httpx" in
# other builds): named here, and the filter also takes a numbered variant as its family.
BODY_LOGGERS = ("httpx", "httpcore", "httpx2", "httpcore2", "h11", "h2", "hpack", "urllib3", "anthropic", "openai",
                "llama_cpp", "opentelemetry")


def body_logger(name: str) -> bool:
    """A logger of a library that may log requests: its top-level name, digits aside."""
    top = name.split(".")[0]
    return top in BODY_LOGGERS or top.rstrip("0123456789") in BODY_LOGGERS
ENV_LOG_CONTENT = "TUTOR_APP_LOG_CONTENT"
_PLAIN = (str, int, float, bool, type(None), Path)


def content_logging() -> bool:
    """The learner opted in (TUTOR_APP_LOG_CONTENT=1) to what was said in the log, for a bug report."""
    return os.environ.get(ENV_LOG_CONTENT, "").strip().lower() in ("1", "true", "yes", "on")


def said(text: str) -> str:
    """For a log line about a learner's or tutor's text: its size, or the text on opt-in."""
    return text if content_logging() else f"<{len(text)} chars>"


class _PrivacyFilter(logging.Filter):
    """Without the opt-in: no body-logging library below WARNING, and objects (events,
    turns, messages) logged with %r/%s appear as their type name only."""

    def filter(self, record: logging.LogRecord) -> bool:
        if content_logging():
            return True
        if record.levelno < logging.WARNING and body_logger(record.name):
            return False
        if not isinstance(record.msg, str):
            record.msg = _Redacted(record.msg)
        if isinstance(record.args, tuple) and record.args:
            record.args = tuple(a if _harmless(a) else _Redacted(a) for a in record.args)
        elif isinstance(record.args, dict):
            record.args = {k: v if _harmless(v) else _Redacted(v) for k, v in record.args.items()}
        return True


class _Redacted(str):
    """An object's type name in place of the object, the same for %s and %r."""

    def __new__(cls, value: object) -> "_Redacted":
        return super().__new__(cls, f"<{type(value).__name__}>")

    def __repr__(self) -> str:
        return str(self)


def _harmless(value: object, depth: int = 0) -> bool:
    """Plain values (the log calls that pass strings are audited) and containers of them."""
    if isinstance(value, (*_PLAIN, BaseException)):
        return True
    if depth < 3 and isinstance(value, (list, tuple, set, frozenset)):
        return all(_harmless(v, depth + 1) for v in value)
    if depth < 3 and isinstance(value, dict):
        return all(_harmless(k, depth + 1) and _harmless(v, depth + 1) for k, v in value.items())
    return False


_PRIVACY = _PrivacyFilter()


def erase_lines(needles: set[str] | frozenset[str]) -> int:
    """Erase, in place, every line of this process's log file (and its rotated copies)
    that contains one of `needles` (ids, or deleted texts). Returns how many lines."""
    needles = {n for n in needles if n}
    if not needles:
        return 0
    erased = 0
    for handler in logging.getLogger().handlers:
        if not (getattr(handler, "_tutor_app", False) and isinstance(handler, logging.FileHandler)):
            continue
        base = Path(handler.baseFilename)
        handler.acquire()
        try:
            handler.flush()
            for path in [base, *sorted(base.parent.glob(base.name + ".*"))]:
                erased += _erase_in(path, needles)
        finally:
            handler.release()
    return erased


def _erase_in(path: Path, needles: set[str]) -> int:
    try:
        with open(path, "r+b") as fh:
            lines = fh.read().splitlines(keepends=True)
            raw = [n.encode("utf-8") for n in needles]
            kept = [line for line in lines if not any(n in line for n in raw)]
            if len(kept) == len(lines):
                return 0
            fh.seek(0)
            fh.write(b"".join(kept))
            fh.truncate()  # the handler appends (O_APPEND): its next line goes after these
            fh.flush()
            os.fsync(fh.fileno())
            return len(lines) - len(kept)
    except OSError:
        return 0


def _private(path: Path) -> None:
    """The log names files and errors of a private practice: owner-only, even when an
    older version created it world-readable."""
    if os.name == "posix":
        try:
            os.chmod(path, 0o600)
        except OSError:
            pass  # not ours to change; the data dir itself is 0700
