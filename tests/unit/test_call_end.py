"""The call-end runner (tutor/call_end.py): jobs run in order, one at a time, on a
non-daemon thread; a failing job does not stop the ones after it. Jobs are held with
events, never sleeps; each test has its own runner."""
from __future__ import annotations

import logging
import threading

from tutor_app.tutor.call_end import CallEndRunner

WAIT = 10  # seconds: only reached when the runner is broken


def _held(runner: CallEndRunner, name: str = "held"):
    """A job that starts, says so, and waits until released."""
    started, release = threading.Event(), threading.Event()

    def work() -> str:
        started.set()
        assert release.wait(WAIT)
        return name

    job = runner.submit(name, work)
    assert started.wait(WAIT), "the runner did not start the job"
    return job, release


def test_jobs_run_in_order_and_return_their_result():
    runner = CallEndRunner()
    ran: list[int] = []
    first, release = _held(runner)
    jobs = [runner.submit(f"job-{i}", lambda i=i: ran.append(i) or i) for i in range(5)]
    release.set()
    jobs[-1].join(WAIT)
    assert ran == [0, 1, 2, 3, 4]
    assert first.result == "held" and [j.result for j in jobs] == [0, 1, 2, 3, 4]
    assert all(j.done() and j.error is None for j in jobs)


def test_one_job_at_a_time():
    runner = CallEndRunner()
    first, release = _held(runner)
    second = runner.submit("second", lambda: "second")
    # The first job holds the only worker: the second waits, whatever the scheduling.
    second.join(0)
    assert not second.done() and not first.done()
    release.set()
    second.join(WAIT)
    assert first.done() and second.result == "second"


def test_join_with_a_timeout_returns_while_the_job_runs():
    runner = CallEndRunner()
    job, release = _held(runner)
    job.join(timeout=0.01)
    assert not job.done() and job.result is None
    release.set()
    job.join()
    assert job.done() and job.result == "held"


def test_a_failing_job_is_logged_and_the_next_one_still_runs(caplog):
    runner = CallEndRunner()

    def boom() -> None:
        raise RuntimeError("model unreachable")

    with caplog.at_level(logging.ERROR, logger="tutor_app.tutor.call_end"):
        failed = runner.submit("call-end-x", boom)
        after = runner.submit("call-end-y", lambda: "fine")
        after.join(WAIT)
    failed.join(WAIT)
    assert isinstance(failed.error, RuntimeError) and failed.result is None
    assert after.result == "fine" and after.error is None
    assert any("call-end-x failed" in r.getMessage() for r in caplog.records)


def test_the_worker_is_not_a_daemon_and_is_named_after_the_job():
    runner = CallEndRunner()
    seen: list[tuple[bool, str]] = []
    job = runner.submit("call-end-s1", lambda: seen.append((threading.current_thread().daemon,
                                                             threading.current_thread().name)))
    job.join(WAIT)
    assert seen == [(False, "call-end-s1")]  # the process waits for a running call end


def test_a_job_after_the_queue_emptied_still_runs():
    """The worker leaves when the queue is empty (an idle non-daemon thread would keep the
    process alive); the next job gets a worker again."""
    runner = CallEndRunner()
    first = runner.submit("first", lambda: 1)
    first.join(WAIT)
    second = runner.submit("second", lambda: 2)
    second.join(WAIT)
    assert (first.result, second.result) == (1, 2)


def test_jobs_submitted_from_many_threads_never_overlap():
    runner = CallEndRunner()
    lock = threading.Lock()
    running = [0]
    most = [0]

    def work() -> None:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        with lock:
            running[0] -= 1

    jobs = []
    jobs_lock = threading.Lock()

    def submit_some() -> None:
        for _ in range(20):
            job = runner.submit("j", work)
            with jobs_lock:
                jobs.append(job)

    submitters = [threading.Thread(target=submit_some) for _ in range(4)]
    for t in submitters:
        t.start()
    for t in submitters:
        t.join(WAIT)
    for job in jobs:
        job.join(WAIT)
    assert len(jobs) == 80 and all(j.done() and j.error is None for j in jobs)
    assert most[0] == 1


def test_finish_call_runs_on_the_runner_and_hands_back_the_outcome(monkeypatch):
    from types import SimpleNamespace

    from tutor_app.tutor import lifecycle

    seen: list[tuple[str, float, str]] = []

    def process_call(engine, session_id, turns, started_at, ended_at, pauses_ms=None):
        seen.append((session_id, ended_at, threading.current_thread().name))
        return lifecycle.CallOutcome(session_id, extraction="done")

    monkeypatch.setattr(lifecycle, "process_call", process_call)
    done: list[lifecycle.CallOutcome] = []
    engine = SimpleNamespace(services=SimpleNamespace(clock=lambda: 50.0))
    job = lifecycle.finish_call(engine, "s1", [], 10.0, on_done=done.append)
    job.join(WAIT)
    assert seen == [("s1", 50.0, "call-end-s1")]  # ended when finish_call was called
    assert job.result is done[0] and job.result.extraction == "done"


def test_start_recovery_is_a_runner_job_and_close_waits_for_it(monkeypatch, tmp_path):
    from tutor_app.tutor import recovery

    started, release = threading.Event(), threading.Event()

    def recover(engine, live_dir, exclude=None, lost=None):
        started.set()
        assert release.wait(WAIT)
        return ["outcome"]

    monkeypatch.setattr(recovery, "recover", recover)
    run = recovery.start_recovery(object(), tmp_path, exclude="live")
    assert started.wait(WAIT)
    run.job.join(0)
    assert not run.job.done() and run.outcomes == []
    release.set()
    run.close()
    assert run.job.done() and run.outcomes == ["outcome"]
