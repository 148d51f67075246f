"""app.worker_client.WorkerClient, the one GUI-side client of the request workers: debounce,
newest answer wins, stale answers counted, a dead worker's job sent again once, shut down."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass

import pytest
from PySide6.QtCore import QObject

from app.worker_client import WorkerClient

pytestmark = pytest.mark.gui


@dataclass(frozen=True)
class ToyJob:
    request: int
    action: str = "echo"
    gate: str = ""  # a file the worker waits for before it answers ("": answer at once)


@dataclass(frozen=True)
class ToyAnswer:
    request: int
    pid: int


def toy_main(inbox, outbox) -> None:
    """Answer each job with its request and this process's id; "die" kills the process."""
    while True:
        job = inbox.get()
        if job is None:
            return
        if job.action == "die":
            os._exit(5)
        while job.gate and not os.path.exists(job.gate):
            time.sleep(0.005)
        outbox.put(ToyAnswer(job.request, os.getpid()))


class Seen:
    def __init__(self) -> None:
        self.answers: list = []
        self.stale: list = []
        self.died: list = []


@pytest.fixture
def parent(qtbot):
    obj = QObject()
    yield obj
    obj.deleteLater()


def _client(parent, seen: Seen, **kw) -> WorkerClient:
    return WorkerClient(
        parent, "test-toy", toy_main, seen.answers.append, poll_ms=10,
        on_stale=seen.stale.append, on_died=lambda job, how: seen.died.append((job, how)), **kw,
    )  # fmt: skip


def test_a_burst_is_one_job_and_only_the_newest_answer_counts(parent, qtbot, tmp_path):
    seen = Seen()
    client = _client(parent, seen, debounce_ms=30)
    try:
        for _ in range(3):  # one GUI tick: the debounce sends the newest job only
            client.submit(ToyJob(client.new_request()))
        qtbot.waitUntil(lambda: bool(seen.answers), timeout=60_000)
        assert client.sent == 1 and [a.request for a in seen.answers] == [3]
        # An answer to a request forgotten before it came is stale, not an answer. The worker
        # answers only once the gate file exists, so the answer comes after forget() however
        # fast or slow the machine is.
        gate = tmp_path / "answer"
        client.submit(ToyJob(client.new_request()))
        client.cancel_pending()  # a waiting job dropped is never sent
        client.submit(ToyJob(client.new_request(), gate=str(gate)))
        qtbot.waitUntil(lambda: client.sent == 2, timeout=10_000)
        client.forget()
        gate.touch()
        qtbot.waitUntil(lambda: bool(seen.stale), timeout=60_000)
        assert [a.request for a in seen.stale] == [5] and client.stale_answers == 1
        assert len(seen.answers) == 1
    finally:
        client.shutdown()
    assert client.worker is None and not client.alive()


def test_a_dead_worker_gets_its_job_again_once_then_the_caller_is_told(parent, qtbot):
    seen = Seen()
    client = _client(parent, seen, retries=1)
    try:
        job = ToyJob(client.new_request(), "die")
        client.submit(job)
        qtbot.waitUntil(lambda: bool(seen.died), timeout=60_000)
        assert seen.died == [(job, "exit code 5")]
        # Started for the job, for its second try and, restarted, for the next job.
        assert client.starts == 3
        qtbot.waitUntil(client.alive, timeout=10_000)
        pid = client.worker.pid
        client.submit(ToyJob(client.new_request()))
        qtbot.waitUntil(lambda: bool(seen.answers), timeout=60_000)
        assert seen.answers == [ToyAnswer(2, pid)]
    finally:
        client.shutdown()


def test_without_restart_a_dead_worker_is_started_again_by_the_next_job(parent, qtbot):
    seen = Seen()
    client = _client(parent, seen, restart=False)
    try:
        client.submit(ToyJob(client.new_request(), "die"))
        qtbot.waitUntil(lambda: bool(seen.died), timeout=60_000)
        assert client.worker is None and client.starts == 1
        client.submit(ToyJob(client.new_request()))
        qtbot.waitUntil(lambda: bool(seen.answers), timeout=60_000)
        assert client.starts == 2 and seen.answers[0].request == 2
    finally:
        client.shutdown()
