"""Where Tutor keeps things: data, config, cache, logs and models.

`--data-dir` / TUTOR_APP_DATA_DIR puts everything (config included) under one folder,
which keeps tests and portable installs hermetic. Without it, platformdirs decides.
"""
from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from tutor_app import APP_NAME
from tutor_app.errors import TutorError

# Names that become file names (a profile's files, live/<session>.lease) are bounded and
# checked here, before anything is opened or named after them.
MAX_PROFILE_CHARS = 200
MAX_SESSION_CHARS = 100  # well below NAME_MAX
PURGE_JOURNAL = "pending-purges.json"  # in db_dir: a deletion not finished yet (ids only)


def check_session_id(session_id: object) -> str:
    """A session id a learner gives (`--session`): short, printable, no path separators."""
    if (not isinstance(session_id, str) or not session_id.strip() or len(session_id) > MAX_SESSION_CHARS
            or not session_id.isprintable() or "/" in session_id or "\\" in session_id):
        raise TutorError(f"a session id must be 1-{MAX_SESSION_CHARS} printable characters without '/' or '\\'")
    return session_id

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

    @property
    def purge_journal(self) -> Path:
        return self.db_dir / PURGE_JOURNAL

    @property
    def practice_dir(self) -> Path:
        """The learners' practice items, a file per profile (practice/store.py)."""
        return self.data_dir / "practice"

    @property
    def live_dir(self) -> Path:
        """Leases of the live calls running now (tutor/recovery.py)."""
        return self.data_dir / "live"

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

    def roots(self) -> tuple[Path, ...]:
        """The app's own folders (config and cache are inside data with --data-dir)."""
        return tuple(dict.fromkeys((self.data_dir, self.config_dir, self.cache_dir)))

    def ensure_writable(self) -> None:
        """Create the data folders, or fail with one clear line."""
        for folder in (self.data_dir, self.config_dir, self.cache_dir, self.log_file.parent):
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise TutorError(f"cannot create {folder}: {exc.strerror or exc}") from None
            if not os.access(folder, os.W_OK):
                raise TutorError(f"no write permission on {folder}: choose another --data-dir")


# Environment for the libraries the app loads; a value the user set wins. Measured with a
# temporary HOME over transcribe, speak, chat, emotion and memory: only onnxruntime wrote
# there (its telemetry: a device id and an event queue under ~/.cache/Microsoft).
# HF_HOME is left alone on purpose: it holds the user's hub login for `models install`.
def library_env() -> dict[str, str]:
    from tutor_app.core.onnx import TELEMETRY_OFF

    return dict(TELEMETRY_OFF)


_inherited_umask: int | None = None


def shareable(root: Path) -> None:
    """Give `root` (a model folder: not private, and maybe bundled into an app that other
    users run) the modes the user's own umask would have given it."""
    if os.name != "posix" or _inherited_umask is None:
        return  # private_files never ran: files already follow the user's umask
    for folder, _dirs, files in os.walk(root):
        os.chmod(folder, 0o777 & ~_inherited_umask)
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path):
                os.chmod(path, 0o666 & ~_inherited_umask)


def private_files(paths: AppPaths) -> None:
    """What the learner said is private: new files 0600 and folders 0700 (umask), an
    existing data folder from a looser version tightened, library telemetry off."""
    for key, value in library_env().items():
        os.environ.setdefault(key, value)
    global _inherited_umask
    if os.name != "posix":
        return  # Windows: the profile folder's ACL already keeps other users out
    old = os.umask(0o077)
    if _inherited_umask is None:
        _inherited_umask = old
    for root in paths.roots():
        if _is_app_folder(root, paths):
            tighten_tree(root)


def _is_app_folder(folder: Path, paths: AppPaths) -> bool:
    """Only a folder that is the app's: never a shared one such as /tmp or HOME that
    --data-dir happened to name."""
    try:
        st = folder.stat()
    except OSError:
        return False
    if st.st_uid != os.geteuid() or st.st_mode & 0o1000:  # not ours, or sticky like /tmp
        return False
    if folder.name == APP_NAME or folder != paths.data_dir:
        return True
    try:
        empty = not any(folder.iterdir())
    except OSError:
        return False
    return empty or any((folder / child).exists() for child in ("logs", "config", "memory.lancedb"))


def tighten_tree(root: Path) -> int:
    """chmod go-rwx on `root` and below (symlinks left alone); the walk is skipped when
    `root` is already private, so start-up stays a single stat. Returns paths changed."""
    try:
        if not root.stat().st_mode & 0o077:
            return 0
    except OSError:
        return 0
    changed = 0
    for folder, dirs, files in os.walk(root):
        for name in (folder, *(os.path.join(folder, n) for n in dirs + files)):
            try:
                st = os.lstat(name)
                if not stat.S_ISLNK(st.st_mode) and st.st_mode & 0o077:
                    os.chmod(name, stat.S_IMODE(st.st_mode) & 0o700)
                    changed += 1
            except OSError:
                continue  # a file that vanished or is not ours: the rest still gets fixed
    return changed
