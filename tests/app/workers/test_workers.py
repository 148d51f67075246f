"""app.workers: spawn, messages both ways, crash detection, stop, and worker logs reaching
the GUI process's log (no Qt, no display)."""

from __future__ import annotations

import logging
import os
import sys
import time

from app.logs import RingHandler, hub
from app.workers import WorkerProcess, drain_queue


def echo_main(inbox, outbox) -> None:
    """Echo every message doubled; log one record and print a traceback-like line."""
    logging.getLogger("tests.echo").info("echo worker up")
    print("something on stderr", file=sys.stderr)
    while True:
        msg = inbox.get()
        if msg is None:
            return
        if msg == "crash":
            os._exit(7)
        outbox.put(msg * 2)


def _wait_for(fn, timeout_s: float = 60.0):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = fn()
        if value:
            return value
        time.sleep(0.02)
    raise AssertionError("timed out")


def test_messages_both_ways_and_a_clean_stop():
    w = WorkerProcess("test-echo")
    w.start(echo_main, w.inbox, w.outbox)
    w.send(21)
    got: list = []
    _wait_for(lambda: got.extend(w.drain()) or got)
    assert got == [42] and w.alive()
    w.stop(timeout_s=10)
    assert not w.alive() and w.process.exitcode == 0


def test_a_crash_is_detected_with_its_exit_code():
    w = WorkerProcess("test-crash")
    w.start(echo_main, w.inbox, w.outbox)
    w.send("crash")
    _wait_for(lambda: not w.alive())
    assert w.exit_description() == "exit code 7"
    w.stop()


def test_worker_log_records_and_stderr_reach_the_gui_log():
    ring = hub().ring
    start = ring.count
    w = WorkerProcess("test-log")
    w.start(echo_main, w.inbox, w.outbox)

    def both_arrived() -> list[str] | None:
        lines = ring.since(start)[0]
        text = "\n".join(lines)
        return lines if "echo worker up" in text and "something on stderr" in text else None

    lines = _wait_for(both_arrived)
    w.stop(timeout_s=10)
    text = "\n".join(lines)
    assert "tests.echo: echo worker up" in text  # a logging record from the worker
    assert "app.worker.test-log: something on stderr" in text  # its stderr, as a record
    assert "ERROR" in text


def test_drain_reads_both_queue_kinds_without_blocking():
    from app.workers import spawn_context

    ctx = spawn_context()
    for q in (ctx.Queue(), ctx.SimpleQueue()):
        assert drain_queue(q) == []
        for i in range(3):
            q.put(i)
        _wait_for(lambda q=q: not q.empty())
        # A Queue's items reach the pipe through a feeder thread: what is there now comes in
        # order, and `limit` caps it; the rest follows.
        got = drain_queue(q, limit=2)
        assert 1 <= len(got) <= 2 and got == [0, 1][: len(got)]
        while len(got) < 3:
            got += _wait_for(lambda q=q: drain_queue(q))
        assert got == [0, 1, 2]
        q.close()


def test_ring_handler_returns_only_new_lines():
    ring = RingHandler(size=3)
    log = logging.getLogger("tests.ring")
    log.addHandler(ring)
    try:
        for i in range(5):
            log.warning("line %d", i)
    finally:
        log.removeHandler(ring)
    lines, count = ring.since(0)
    assert count == 5 and [ln[-6:] for ln in lines] == ["line 2", "line 3", "line 4"]
    assert ring.since(count) == ([], 5)
