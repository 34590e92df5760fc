"""A second process for spaCy's NER on big batches (a chat import: NER was 41 % of it, on one core).

On a machine with two or more cores, a batch of at least `MIN_SEGMENTS` segments is cut into chunks that
this process takes from the front while a helper process takes them from the back, each running the same
pipeline (its results are the same in either process). The helper is a plain `python -m` child
(`ner_worker`) that talks over two pipes of its own (so no script of the caller's is imported again, as
`multiprocessing`'s spawn would), started on the first big batch; it stays while batches keep coming and
stops `IDLE_SECONDS` after the last one, or when this process ends (its input pipe closes). If it cannot
start or fails, what it had not finished runs here and no helper is tried again in this process.
`ENGRAM_NER_HELPER=off` keeps all NER in this process.
"""
from __future__ import annotations

import logging
import os
import pickle
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, BinaryIO, Callable, Sequence

__all__ = ["IDLE_SECONDS", "MIN_SEGMENTS", "helper_chunks", "helper_pid", "receive", "send", "shared_ner", "stop_helper",
           "usable_cores"]

log = logging.getLogger(__name__)

MIN_SEGMENTS = 256  # below this a batch takes under ~0.4 s of NER: not worth the hand-over
CHUNK = 32
IDLE_SECONDS = 60.0

Rows = list[tuple[int, int, str, str]]
_LENGTH = struct.Struct(">Q")


def send(stream: BinaryIO, value: Any) -> None:
    data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    stream.write(_LENGTH.pack(len(data)) + data)
    stream.flush()


def receive(stream: BinaryIO) -> Any:
    head = stream.read(_LENGTH.size)
    if len(head) < _LENGTH.size:
        raise EOFError("the other end closed its pipe")
    size = _LENGTH.unpack(head)[0]
    data = stream.read(size)
    if len(data) < size:
        raise EOFError("the other end closed its pipe mid-message")
    return pickle.loads(data)


class _Helper:
    """The child process and its two pipes."""

    def __init__(self) -> None:
        to_child_r, to_child_w = os.pipe()
        from_child_r, from_child_w = os.pipe()
        env = dict(os.environ)
        root = str(Path(__file__).resolve().parents[2])  # the folder holding the `memory` package
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
        try:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "memory.extract.ner_worker", str(to_child_r), str(from_child_w)],
                pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                env=env, close_fds=True)
        except OSError:
            os.close(to_child_w)
            os.close(from_child_r)
            raise
        finally:
            os.close(to_child_r)
            os.close(from_child_w)
        self.to_child = os.fdopen(to_child_w, "wb")
        self.from_child = os.fdopen(from_child_r, "rb")
        self.in_use = threading.Lock()

    def run(self, segments: list[str]) -> list[Rows]:
        send(self.to_child, segments)
        return receive(self.from_child)

    def close(self) -> None:
        """Its input closed, the child ends after the chunk in hand; a reader still waiting gets that answer."""
        try:
            self.to_child.close()
        except OSError:
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.from_child.close()


_LOCK = threading.Lock()
_state: dict[str, Any] = {"helper": None, "timer": None, "failed": False, "chunks": 0}


def usable_cores() -> int:
    """The cores this process may run on: a helper needs two."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _acquire() -> _Helper | None:
    """The helper, started if need be and held for one batch; None when there is to be none now."""
    if os.environ.get("ENGRAM_NER_HELPER", "on").strip().lower() in {"off", "0", "no"} or usable_cores() < 2:
        return None
    with _LOCK:
        if _state["failed"]:
            return None
        if _state["helper"] is None:
            try:
                _state["helper"] = _Helper()
            except OSError as exc:
                _state["failed"] = True
                log.warning("NER stays in this process: no helper process (%s)", exc)
                return None
        helper = _state["helper"]
        if not helper.in_use.acquire(blocking=False):  # another thread's batch has it
            return None
        if _state["timer"] is not None:
            _state["timer"].cancel()
            _state["timer"] = None
        return helper


def _release(helper: _Helper, broken: bool) -> None:
    with _LOCK:
        helper.in_use.release()
        if _state["helper"] is not helper:  # stopped meanwhile
            return
        if broken:
            _state["failed"] = True
            _stop_locked()
        else:
            timer = threading.Timer(IDLE_SECONDS, _stop_if_idle)
            timer.daemon = True
            _state["timer"] = timer
            timer.start()


def _stop_if_idle() -> None:
    with _LOCK:
        helper = _state["helper"]
        if helper is not None and not helper.in_use.locked():
            _stop_locked()


def _stop_locked() -> None:
    helper, _state["helper"] = _state["helper"], None
    if _state["timer"] is not None:
        _state["timer"].cancel()
        _state["timer"] = None
    if helper is not None:
        helper.close()


def stop_helper() -> None:
    """Stop the helper now (it stops by itself once idle); a later big batch may start a new one."""
    with _LOCK:
        _stop_locked()
        _state["failed"] = False


def helper_pid() -> int | None:
    """The helper's process id while it runs."""
    helper = _state["helper"]
    return helper.process.pid if helper is not None and helper.process.poll() is None else None


def helper_chunks() -> int:
    """How many chunks the helper has returned in this process so far."""
    return _state["chunks"]


class _Ends:
    """Chunk numbers handed out from the front (this process) and from the back (the helper)."""

    def __init__(self, count: int) -> None:
        self.front, self.back = 0, count
        self.lock = threading.Lock()

    def take_front(self) -> int | None:
        with self.lock:
            if self.front >= self.back:
                return None
            self.front += 1
            return self.front - 1

    def take_back(self) -> int | None:
        with self.lock:
            if self.front >= self.back:
                return None
            self.back -= 1
            return self.back


def shared_ner(segments: Sequence[str], run_here: Callable[[list[str]], list[Rows]]) -> list[Rows]:
    """`run_here(segments)`, the work shared with the helper process when the batch is big enough."""
    segments = list(segments)
    helper = _acquire() if len(segments) >= MIN_SEGMENTS else None
    if helper is None:
        return run_here(segments)
    chunks = [segments[i:i + CHUNK] for i in range(0, len(segments), CHUNK)]
    rows: list[list[Rows] | None] = [None] * len(chunks)
    ends = _Ends(len(chunks))

    def feed_helper() -> None:  # holds the helper until its last answer is read, so the pipes stay in step
        broken = False
        try:
            while (i := ends.take_back()) is not None:
                found = helper.run(chunks[i])
                if len(found) != len(chunks[i]):
                    raise ValueError(f"{len(found)} answers for {len(chunks[i])} segments")
                rows[i] = found
                _state["chunks"] += 1
        except (OSError, EOFError, pickle.UnpicklingError, ValueError) as exc:
            broken = True
            log.warning("NER helper process failed; its chunks run in this process: %s", exc)
        finally:
            _release(helper, broken)

    threading.Thread(target=feed_helper, name="ner-helper-feed", daemon=True).start()
    started, done_here = time.perf_counter(), 0
    while (i := ends.take_front()) is not None:
        rows[i] = run_here(chunks[i])
        done_here += 1
    # the helper's last chunk is awaited about as long as a chunk takes here, then run here as well (a helper
    # still loading its model, or one that failed, does not hold the batch up)
    waited_until = time.perf_counter() + 2 * (time.perf_counter() - started) / max(done_here, 1) + 0.05
    while any(r is None for r in rows) and time.perf_counter() < waited_until:
        time.sleep(0.005)
    for i, chunk in enumerate(chunks):
        if rows[i] is None:
            rows[i] = run_here(chunk)
    return [row for chunk_rows in rows for row in chunk_rows]  # type: ignore[union-attr]
