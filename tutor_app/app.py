"""Composition root: builds settings and the services from them, lazily, once.

No logic lives here: each service comes from its own package's `load_*` function, and
heavy libraries are imported only when a command first needs that service.
"""
from __future__ import annotations

import argparse
import logging
import os
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar, overload

from tutor_app.logs import setup_logging
from tutor_app.paths import AppPaths, private_files
from tutor_app.settings import Settings

if TYPE_CHECKING:
    from tutor_app.call.listen.judge import EndOfTurnJudge
    from tutor_app.emotion.common import ProbabilityScorer
    from tutor_app.llm.active import ActiveTutor
    from tutor_app.llm.fallback import FallbackChatModel
    from tutor_app.llm.llama_backend import LlamaChatModel
    from tutor_app.llm.openai_server import OpenAIServerChatModel
    from tutor_app.memory.storage.store import ProfileMemory
    from tutor_app.practice.store import PracticeStore
    from tutor_app.speech.stt import WhisperStt
    from tutor_app.speech.tts import PiperTts
    from tutor_app.tutor.engine import TutorEngine
    from tutor_app.tutor.recovery import Recovery

T = TypeVar("T")

log = logging.getLogger(__name__)


class service(Generic[T]):  # noqa: N801 - used like functools.cached_property
    """A lazily built service, built once even when several threads (GUI warm-up, workers)
    ask at the same time; each service has its own lock, so a slow model load never
    blocks an unrelated service. Assigning the attribute injects a ready service. Typed
    as what `build` returns: the real classes, which mypy checks against the seams
    (core/protocols.py, the packages' ports.py) where `engine` hands them to the engine."""

    def __init__(self, build: Callable[[Any], T]) -> None:
        self.build = build
        self.name = build.__name__
        self.__doc__ = build.__doc__

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: Any = None) -> service[T]: ...

    @overload
    def __get__(self, obj: object, owner: Any = None) -> T: ...

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        cache = obj.__dict__
        if self.name not in cache:
            with obj._service_locks.setdefault(self.name, threading.Lock()):
                if self.name not in cache:
                    cache[self.name] = self.build(obj)
        return cache[self.name]


class App:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._lock = threading.RLock()
        self._service_locks: dict[str, threading.Lock] = {}
        self._closers: list[Any] = []
        self._recovery: Recovery | None = None
        # The tutor model is chosen from the llm settings and whether a key is set: a change
        # of either in this run (the Settings window) makes the next turn choose again.
        from tutor_app.settings_store import store_for

        self._chat_choice: tuple[object, ...] = ()
        store_for(settings).subscribe(lambda _settings: self._forget_stale_chat_model())
        self._loaded_tutor: ActiveTutor | None = None  # what the loaded chat model is

    @classmethod
    def from_args(cls, args: argparse.Namespace) -> "App":
        # No telemetry, no progress bars from the model libraries, and no hub look-ups:
        # models load from local folders. An install the learner asks for (`models
        # install`, the Models page) lifts the offline switch for its download only
        # (registry/install.hub_online).
        os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        os.environ.setdefault("DO_NOT_TRACK", "1")
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        paths = AppPaths.resolve(getattr(args, "data_dir", None))
        private_files(paths)  # before anything (the log file first) is created
        debug = bool(getattr(args, "debug", False))
        setup_logging(paths.log_file if _writable_or_creatable(paths.data_dir) else None, debug)
        settings = Settings.load(
            paths, profile=getattr(args, "profile", None), llm_backend=getattr(args, "llm", None), debug=debug
        )
        return cls(settings)

    @property
    def paths(self) -> AppPaths:
        return self.settings.paths

    @service
    def registry(self):
        from tutor_app.paths import bundled_models_dir
        from tutor_app.registry.manifest import ModelRegistry

        return ModelRegistry.load(self.paths.models_dir, bundled_dir=bundled_models_dir(),
                                  cache_dir=self.paths.cache_dir / "models")

    @service
    def devices(self):
        from tutor_app.speech.devices import select_compute

        return select_compute(self.settings.speech.stt_device, self.settings.speech.stt_compute_type)

    @service
    def stt(self) -> WhisperStt:
        from tutor_app.speech.stt import load_stt

        return load_stt(self.settings, self.registry, self.devices, vad=self.vad)

    @service
    def tts(self) -> PiperTts:
        from tutor_app.speech.tts import load_tts

        return load_tts(self.settings, self.registry)

    @service
    def vad(self):
        from tutor_app.speech.vad import load_vad

        return load_vad(self.settings, self.registry)

    @service
    def end_of_turn(self) -> EndOfTurnJudge | None:
        """The live call's end-of-turn judge, or None (fixed-silence turn-taking)."""
        from tutor_app.call.listen.judge import load_judge

        return load_judge(self.registry)

    @service
    def emotion(self) -> ProbabilityScorer:
        from tutor_app.emotion.scorer import load_scorer

        return load_scorer(self.settings, self.registry)

    @service
    def embedder(self):
        from tutor_app.memory.embedder import load_embedder

        return load_embedder(self.settings, self.registry)

    @service
    def memory(self) -> ProfileMemory:
        from tutor_app.memory.storage.store import open_store

        self.paths.ensure_writable()
        store = open_store(self.paths.db_dir, self.embedder, self.settings.profile, self.memory_footprints())
        self._closers.append(store)
        return store

    def memory_footprints(self) -> list:
        """The learner's text kept outside the memory database: deletions reach it too."""
        from tutor_app.practice.store import PracticeFootprint

        return [PracticeFootprint(self.paths.practice_dir)]

    @service
    def practice(self) -> PracticeStore:
        from tutor_app.practice.store import PracticeStore, known_from

        self.paths.ensure_writable()
        # Memory is read (opened on first use) only to migrate a file from before the gates.
        return PracticeStore(self.paths.practice_dir, self.settings.profile,
                             known=lambda sessions: known_from(self.memory)(sessions))

    @service
    def chat_model(self) -> FallbackChatModel | LlamaChatModel | OpenAIServerChatModel:
        from tutor_app.llm.active import active_tutor
        from tutor_app.llm.factory import load_chat_model

        self._chat_choice = self._chat_model_inputs()
        model = load_chat_model(self.settings, self.registry)
        self._loaded_tutor = active_tutor(self.settings)
        # Closed with the app: a local model's background read ahead must end before the
        # interpreter frees llama.cpp under it (`call --input` crashed at exit, 1 run in ~4).
        with self._lock:
            self._closers.append(model)
        return model

    def active_tutor(self) -> ActiveTutor:
        """Which tutor model answers, for the call screen: the loaded one, else the
        settings' choice (what the next turn loads). Nothing is loaded here."""
        from tutor_app.llm.active import active_tutor

        return self._loaded_tutor or active_tutor(self.settings)

    def _chat_model_inputs(self) -> tuple[object, ...]:
        from dataclasses import astuple

        from tutor_app.llm.keys import key_changes

        return (astuple(self.settings.llm), key_changes())

    def _forget_stale_chat_model(self) -> None:
        """A turn in progress keeps the model it has; the next one builds the new choice."""
        if "chat_model" in self.__dict__ and self._chat_model_inputs() != self._chat_choice:
            old = self.__dict__.pop("chat_model", None)
            self._loaded_tutor = None
            # Not closed here: a turn may be streaming from it (closing a cloud client would
            # break that stream); it is freed with its last reference.
            with self._lock:
                if old in self._closers:
                    self._closers.remove(old)

    @service
    def engine(self) -> TutorEngine:
        from tutor_app.tutor.engine import EngineServices, TutorEngine

        return TutorEngine(EngineServices(
            settings=self.settings, emotion=self.emotion, memory=self.memory,
            chat_model=lambda: self.chat_model, stt=lambda: self.stt, practice=self.practice,
        ))

    @property
    def recovery(self) -> Recovery | None:
        """The running or finished recovery of this process (None before any start)."""
        return self._recovery

    def recover_calls(self, exclude: str | None = None) -> None:
        """Start the one recovery path (tutor/recovery.py) in the background, once per
        process; `close()` waits for it. Every start (GUI, call, chat, end-call) calls this."""
        from tutor_app.tutor.recovery import start_recovery

        with self._lock:
            if self._recovery is None:
                self._recovery = start_recovery(self.engine, self.paths.live_dir, exclude)
                self._closers.append(self._recovery)

    def switch_profile(self, profile: str) -> None:
        """Rebind memory and the engine to another learner profile (models stay loaded).
        Called on the GUI thread: it waits for nothing. The old profile's store closes on
        the call-end runner, after the jobs queued there that use it (this start's
        recovery, a call's end); the next start recovers the new profile's calls."""
        from tutor_app.tutor.call_end import submit

        with self._lock:
            if self._recovery is not None:  # it runs on, on the old profile's engine
                self._closers.remove(self._recovery)
                self._recovery = None
            memory = self.__dict__.pop("memory", None)
            self.__dict__.pop("engine", None)
            self.__dict__.pop("practice", None)
            if memory is not None:
                if memory in self._closers:
                    self._closers.remove(memory)
                submit("close-old-profile", memory.close)
            self.settings.profile = profile

    def close(self) -> None:
        for closer in reversed(self._closers):
            try:
                closer.close()
            except Exception:  # noqa: BLE001 - closing must not mask the real error
                log.exception("error while closing %r", closer)
        self._closers.clear()


def _writable_or_creatable(path) -> bool:
    probe = path
    while not probe.exists():
        if probe.parent == probe:
            return False
        probe = probe.parent
    return os.access(probe, os.W_OK)
