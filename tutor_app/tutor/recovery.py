"""One recovery path, run in the background at every start (GUI, `call`, `chat`,
`end-call`): calls whose end-of-call work never completed are finished and extracted.

Which calls are unfinished:
- ended but not extracted: the extraction failed (the model was unreachable) or the
  process died during `end-call` (`process_call` records the end time first);
- never ended, and owned by a live call whose process is gone (a GUI crash or kill -9).
  A live call holds a `CallLease` (an OS file lock, released by the OS when the process
  dies), so a call another running process still owns is never touched. A text session
  (`chat`, `call --input`) holds no lease: it stays open for `--session S` to continue.
"""
from __future__ import annotations

import hashlib
import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tutor_app.memory.ports import MemoryStore
from tutor_app.tutor import call_end
from tutor_app.tutor.call_end import CallEndJob
from tutor_app.tutor.lifecycle import CallOutcome, process_call
from tutor_app.tutor.ports import CallEndEngine

if TYPE_CHECKING:
    from tutor_app.memory.storage.models import CallRecord

log = logging.getLogger(__name__)

LEASE_SUFFIX = ".lease"
_PLAIN_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:@-]{0,99}")


def lease_path(live_dir: Path, session_id: str) -> Path:
    """The lease file of a session: its id when that is a plain, short name, else a digest,
    so no id (a 5,000-character one from an older version, a '../x') names a bad file."""
    if _PLAIN_ID.fullmatch(session_id):
        return live_dir / f"{session_id}{LEASE_SUFFIX}"
    return live_dir / f"session-{hashlib.sha256(session_id.encode('utf-8', 'surrogatepass')).hexdigest()[:32]}{LEASE_SUFFIX}"


class CallLease:
    """Held by the process running a live call, from its start until its call-end work
    is done. A lease file whose lock can be taken belongs to a call that died."""

    def __init__(self, live_dir: Path, session_id: str) -> None:
        from filelock import FileLock

        live_dir.mkdir(parents=True, exist_ok=True)
        self.path = lease_path(live_dir, session_id)
        self._lock = FileLock(str(self.path), timeout=0)
        self._lock.acquire()

    def release(self) -> None:
        """The call is finished: its lease goes (the file first, so nobody sees it free)."""
        if self._lock.is_locked:
            self.path.unlink(missing_ok=True)
            self._lock.release()


def abandoned(live_dir: Path, session_id: str) -> bool:
    """True when a live call's lease exists and nobody holds it (its process is gone)."""
    from filelock import FileLock, Timeout

    path = lease_path(live_dir, session_id)
    if not path.exists():
        return False
    probe = FileLock(str(path), timeout=0)
    try:
        probe.acquire()
    except Timeout:
        return False  # a running call (this process or another) owns it
    probe.release()
    return True


@dataclass
class Recovery:
    """The background run of `recover` (a job of the call-end runner); `close()` waits for
    it (a command's exit must not cut an extraction off half-way: it would only be redone
    next time). Never on the GUI thread: a profile switch lets it run on, on the old
    profile's engine, and queues the old store's close behind it (app.py)."""

    job: CallEndJob[None] | None = None
    outcomes: list[CallOutcome] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)  # calls whose process died while they were live

    def close(self) -> None:
        if self.job is not None:
            self.job.join()

    def lost_reports(self) -> list[dict[str, Any]]:
        """After `close()`: the reports of the calls a crash had cut off, now finished (the
        learner is told: they never saw these calls end)."""
        return [o.report.to_dict() for o in self.outcomes if o.session_id in self.lost and o.report is not None]


def unfinished(memory: MemoryStore, live_dir: Path, exclude: str | None = None) -> list[CallRecord]:
    """The calls `recover` would finish, oldest first."""
    out = []
    for call in memory.calls():
        if call.extracted or call.session_id == exclude:
            continue
        if call.ended_at is None and not abandoned(live_dir, call.session_id):
            continue
        out.append(call)
    return out


def recover(engine: CallEndEngine, live_dir: Path, exclude: str | None = None,
            lost: list[str] | None = None) -> list[CallOutcome]:
    """Finish every unfinished call of the engine's profile now (synchronously). `lost`
    gets the session ids of those that were live when their process died."""
    done = []
    calls = unfinished(engine.services.memory, live_dir, exclude)
    if lost is not None:
        lost.extend(c.session_id for c in calls if c.ended_at is None)
    for call in calls:
        ended = call.ended_at.timestamp() if call.ended_at else _last_activity(engine, call)
        try:
            outcome = process_call(engine, call.session_id, None, None, ended, unless_done=True)
        except Exception:  # noqa: BLE001 - one bad call must not stop the others; next start retries
            log.exception("recovering call %s failed", call.session_id)
            continue
        done.append(outcome)
        log.info("recovered call %s: extraction %s", call.session_id, outcome.extraction)
        # The call has its end time now: a failed extraction is retried as "ended, not
        # extracted", so the dead call's lease has done its job.
        lease_path(live_dir, call.session_id).unlink(missing_ok=True)
    return done


def start_recovery(engine: CallEndEngine, live_dir: Path, exclude: str | None = None) -> Recovery:
    """`recover` on the call-end runner (tutor/call_end.py: finished before the process
    exits; a failure is logged there and the next start retries)."""
    recovery = Recovery()

    def work() -> None:
        recovery.outcomes.extend(recover(engine, live_dir, exclude, lost=recovery.lost))

    recovery.job = call_end.submit("recover-calls", work)
    return recovery


def _last_activity(engine: CallEndEngine, call: CallRecord) -> float:
    """A call that died while live ended at its last message (not at this restart)."""
    messages = engine.services.memory.session_messages(call.session_id)
    if messages:
        return messages[-1][0].created_at.timestamp()
    return call.started_at.timestamp() if call.started_at else engine.services.clock()
