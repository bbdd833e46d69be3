"""A profile switch (the Memory page, on the GUI thread) waits for nothing: the recovery
started for the old profile runs on, and the old profile's store closes after it, on the
call-end runner, never under the GUI thread."""
from __future__ import annotations

import threading

from tutor_app.app import App
from tutor_app.paths import AppPaths
from tutor_app.settings import Settings
from tutor_app.tutor import call_end
from tutor_app.tutor.recovery import Recovery


class OldStore:
    """The old profile's memory store: records on which thread it closed, and whether the
    recovery that uses it was done by then."""

    def __init__(self, recovery: Recovery) -> None:
        self.recovery = recovery
        self.closed = threading.Event()
        self.closed_after_recovery: bool | None = None
        self.closed_on = ""

    def close(self) -> None:
        assert self.recovery.job is not None
        self.closed_after_recovery = self.recovery.job.done()
        self.closed_on = threading.current_thread().name
        self.closed.set()


def test_a_profile_switch_waits_neither_for_the_recovery_nor_for_the_old_store(tmp_path):
    app = App(Settings(paths=AppPaths.resolve(tmp_path)))
    release = threading.Event()
    recovery = Recovery(job=call_end.submit("recover-calls", lambda: release.wait(10)))  # still running
    store = OldStore(recovery)
    app._recovery = recovery
    app._closers += [recovery, store]
    app.__dict__["memory"] = store
    try:
        app.switch_profile("bob")  # returns at once: the recovery is still running
        assert not recovery.job.done() and not store.closed.is_set()
        assert app.settings.profile == "bob" and "memory" not in app.__dict__ and app.recovery is None
        assert store not in app._closers and recovery not in app._closers
    finally:
        release.set()
    assert store.closed.wait(10)
    assert store.closed_after_recovery is True  # the recovery used that store until it was done
    assert store.closed_on != threading.current_thread().name
