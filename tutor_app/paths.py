"""Where Tutor keeps things: data, config, cache, logs and models.

`--data-dir` / TUTOR_APP_DATA_DIR puts everything (config included) under one folder,
which keeps tests and portable installs hermetic. Without it, platformdirs decides.
"""
from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tutor_app import APP_NAME
from tutor_app.errors import TutorError

ENV_DATA_DIR = "TUTOR_APP_DATA_DIR"
ENV_MODELS_DIR = "TUTOR_APP_MODELS_DIR"


def source_root() -> Path:
    """The checkout (or the PyInstaller bundle) that holds assets/ and models/."""
    bundle = getattr(sys, "_MEIPASS", None)
    if bundle:
        return Path(bundle)
    return Path(__file__).resolve().parent.parent


def assets_dir() -> Path:
    return source_root() / "assets"


def bundled_models_dir() -> Path | None:
    """The models that came inside the installed app (a frozen build), or None. That
    folder is often read-only (/opt, Program Files). A checkout has none: its models/
    folder is the models folder itself."""
    if not getattr(sys, "_MEIPASS", None):
        return None
    folder = source_root() / "models"
    return folder if (folder / "models.toml").is_file() else None


def default_models_dir(data_dir: Path | None = None) -> Path:
    env = os.environ.get(ENV_MODELS_DIR)
    if env:
        return Path(env).expanduser()
    repo_models = source_root() / "models"
    if (repo_models / "models.toml").is_file() and os.access(repo_models, os.W_OK):
        return repo_models
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "models"


@dataclass(frozen=True)
class AppPaths:
    data_dir: Path
    config_dir: Path
    cache_dir: Path
    models_dir: Path

    @property
    def log_file(self) -> Path:
        return self.data_dir / "logs" / "tutor-app.log"

    @property
    def settings_file(self) -> Path:
        return self.config_dir / "settings.toml"

    @property
    def db_dir(self) -> Path:
        return self.data_dir / "memory.lancedb"

    @classmethod
    def resolve(cls, data_dir: str | Path | None = None) -> "AppPaths":
        chosen = data_dir or os.environ.get(ENV_DATA_DIR)
        if chosen:
            root = Path(chosen).expanduser().resolve()
            return cls(root, root / "config", root / "cache", default_models_dir(root))
        import platformdirs

        data = Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
        return cls(
            data,
            Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)),
            Path(platformdirs.user_cache_dir(APP_NAME, appauthor=False)),
            default_models_dir(data),
        )

    def ensure_writable(self) -> None:
        """Create the data folders, or fail with one clear line."""
        for folder in (self.data_dir, self.config_dir, self.cache_dir, self.log_file.parent):
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise TutorError(f"cannot create {folder}: {exc.strerror or exc}") from None
            if not os.access(folder, os.W_OK):
                raise TutorError(f"no write permission on {folder}: choose another --data-dir")
