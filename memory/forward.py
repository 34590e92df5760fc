"""One store, two front ends — the caller's side: run a CLI command here, or in the process that holds the store.

`dispatch` runs the command in this process when the store is free. When another process holds it and serves
it (memory/service.py), the command's arguments go there and what it prints comes back as it is printed,
with its exit code — the same output as a local run. A holder that is still opening the store is waited
for (up to LOCK_WAIT_S), one whose port refuses connections for REFUSED_WAIT_S; one that went away before it
ran the command leaves the store free to open here.
"""
from __future__ import annotations

import http.client
import json
import os
import sys
import time
from argparse import Namespace
from pathlib import Path
from typing import Callable

from .engram import resolve_home
from .errors import EngramError, StoreLockedError
from .service import NOT_SERVED, Holder, read_holder, service_file

LOCK_WAIT_S = 30.0  # a holder opening a large store writes its service file once its index is read
REFUSED_WAIT_S = 5.0  # a live holder whose port refuses connections has lost its service: it will not answer
CONNECT_TIMEOUT_S = 5.0
RELEASE_WAIT_S = 30.0  # a holder that is alive is asked again until then: a loaded machine can be slow to answer


class HolderGone(Exception):
    """The holder stopped before it ran the command: the store may be free to open here."""

    def __init__(self, why: str, *, refused: bool = False) -> None:
        super().__init__(why)
        self.refused = refused  # nothing listens on its port


def dispatch(args: Namespace, argv: list[str], run: Callable[[Namespace], int]) -> int:
    """Run the parsed command (`run`, which raises StoreLockedError when the store is held) or forward it."""
    home = resolve_home(getattr(args, "home", None))
    deadline = time.monotonic() + LOCK_WAIT_S
    said: set[str] = set()
    unreachable: tuple[Holder, str] | None = None
    refused_since: float | None = None

    def note(key: str, text: str) -> None:
        if key not in said:
            said.add(key)
            print(f"note: {text}", file=sys.stderr)

    try:
        while True:
            holder = _live_holder(home, note) if _needs_store(args) else None
            mine = holder is None or holder.pid == os.getpid()
            # a one-off command ends soon: `watch`, `reembed` and `restore` wait for it instead
            waits = not mine and args.command in NOT_SERVED and holder.kind == "cli" and time.monotonic() < deadline
            if not mine and not waits:
                try:
                    return forward(holder, argv, home, args)
                except HolderGone as exc:
                    unreachable = (holder, str(exc))  # the store may be free now
                    refused_since = (refused_since or time.monotonic()) if exc.refused else None
            if not waits:
                try:
                    return run(args)
                except StoreLockedError as exc:
                    refused_long = refused_since is not None and time.monotonic() - refused_since > REFUSED_WAIT_S
                    if time.monotonic() > deadline or refused_long:
                        print(f"error: {_locked_message(exc, unreachable)}", file=sys.stderr)
                        return 1
            note("waiting", "another Engram process holds the memory store; waiting for it…")
            time.sleep(0.25)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _live_holder(home: Path, note: Callable[[str, str], None]) -> Holder | None:
    """The live holder of the store in `home`; a file left by a dead one is named once, then ignored."""
    holder = read_holder(home)
    if holder is not None and not holder.is_running():
        note("stale", f"{service_file(home)} names {holder.describe()}, which is no longer running (it did not "
                      f"stop cleanly); its service is gone, so the command runs here")
        return None
    return holder


def _locked_message(exc: StoreLockedError, unreachable: tuple[Holder, str] | None) -> str:
    if unreachable is None:
        return str(exc)
    holder, why = unreachable
    return (f"{holder.describe()} holds the memory store, but its service on 127.0.0.1:{holder.port} does not "
            f"answer ({why}); {holder.how_to_stop()} and run the command again")


def _needs_store(args: Namespace) -> bool:
    return not (args.command == "restore" and getattr(args, "list", False))


def _connect(holder: Holder, path: str, payload: dict) -> http.client.HTTPResponse:
    """POST `payload` to the holder; HolderGone when it is not there (nothing was run)."""
    conn = http.client.HTTPConnection("127.0.0.1", holder.port, timeout=CONNECT_TIMEOUT_S)
    body = json.dumps(payload, ensure_ascii=False).encode("utf-8", "surrogatepass")
    try:
        conn.request("POST", path, body=body, headers={
            "Authorization": f"Bearer {holder.token}", "Content-Type": "application/json"})
        sock = conn.sock  # the response takes it over (and the connection forgets it)
        response = conn.getresponse()
    except (ConnectionError, http.client.RemoteDisconnected, TimeoutError, OSError) as exc:
        conn.close()
        raise HolderGone(str(exc), refused=isinstance(exc, ConnectionRefusedError)) from None
    if response.status == 503:
        response.close()
        raise HolderGone("the holder is stopping")
    sock.settimeout(None)  # the headers came at once; a long command (ask, import-chat) ends when it is done
    return response


def _refused(holder: Holder, response: http.client.HTTPResponse) -> str:
    try:
        reason = json.loads(response.read() or b"{}").get("error")
    except ValueError:
        reason = None
    return f"{holder.describe()} refused the command ({response.status}: {reason or response.reason})"


def forward(holder: Holder, argv: list[str], home: Path, args: Namespace) -> int:
    """Run the command in the holder's process; its output is printed here as it comes, its exit code returned."""
    payload = {"argv": argv, "cwd": os.getcwd(), "home": str(home), "embedder": getattr(args, "embedder", None)}
    response = _connect(holder, "/v1/run", payload)
    if response.status != 200:
        print(f"error: {_refused(holder, response)}", file=sys.stderr)
        return 1
    print(f"note: {holder.describe()} holds the memory store; the command runs there", file=sys.stderr)
    streams = {"stdout": sys.stdout, "stderr": sys.stderr}
    try:
        while line := response.readline():
            frame = json.loads(line)
            if "exit" in frame:
                return int(frame["exit"])
            for name, text in frame.items():
                streams[name].write(text)
                streams[name].flush()
    except (OSError, ValueError, http.client.HTTPException):
        pass
    finally:
        response.close()
    print(f"error: {holder.describe()} stopped before the command finished; a write is stored whole or not "
          f"at all — check with `python -m memory recall`", file=sys.stderr)
    return 1


def run_there(holder: Holder, argv: list[str], home: Path) -> tuple[int, str, str]:
    """A command run by the holder with its output collected: (exit code, stdout, stderr). For the app."""
    response = _connect(holder, "/v1/run", {"argv": argv, "cwd": os.getcwd(), "home": str(home)})
    if response.status != 200:
        raise EngramError(_refused(holder, response))
    out, err, code = [], [], None
    with response:
        for line in iter(response.readline, b""):
            frame = json.loads(line)
            if "exit" in frame:
                code = int(frame["exit"])
                break
            out.append(frame.get("stdout", ""))
            err.append(frame.get("stderr", ""))
    if code is None:
        raise EngramError(f"{holder.describe()} stopped before it answered")
    return code, "".join(out), "".join(err)


def ask_to_release(holder: Holder) -> None:
    """Ask the holder to hand the store over (`watch` stops); EngramError naming why not."""
    deadline = time.monotonic() + RELEASE_WAIT_S
    while True:
        try:
            response = _connect(holder, "/v1/release", {})
            break
        except HolderGone as exc:
            if not holder.is_running():
                return  # gone already: the store is free
            if time.monotonic() > deadline:  # alive but not answering (a busy or stalled process)
                raise EngramError(f"{holder.describe()} did not answer the request to hand the store over "
                                  f"({exc}); {holder.how_to_stop()}") from None
            time.sleep(0.5)
    with response:
        if response.status != 200:
            raise EngramError(_refused(holder, response))
