"""Logging: one logger per module, a rotating log file in the data dir, quiet stderr."""
from __future__ import annotations

import logging
import logging.handlers
from pathlib import Path

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging(log_file: Path | None, debug: bool = False) -> None:
    root = logging.getLogger()
    for handler in list(root.handlers):
        if getattr(handler, "_tutor_app", False):
            root.removeHandler(handler)
            handler.close()
    root.setLevel(logging.DEBUG if debug else logging.INFO)
    console = logging.StreamHandler()
    console.setLevel(logging.DEBUG if debug else logging.WARNING)
    console.setFormatter(logging.Formatter("tutor-app: %(levelname)s: %(message)s"))
    console._tutor_app = True  # type: ignore[attr-defined]
    root.addHandler(console)
    if log_file is not None:
        try:
            log_file.parent.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(
                log_file, maxBytes=2_000_000, backupCount=3, encoding="utf-8"
            )
        except OSError:
            return  # an unwritable data dir is reported by the command that needs it
        handler.setFormatter(logging.Formatter(_FORMAT))
        handler._tutor_app = True  # type: ignore[attr-defined]
        root.addHandler(handler)
    # Third-party libraries are chatty at INFO.
    for noisy in ("httpx", "httpcore", "faster_whisper", "sentence_transformers", "urllib3",
                  "transformers", "lancedb", "filelock", "huggingface_hub"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
