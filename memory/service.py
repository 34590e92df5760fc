"""One store, two front ends — the holder's side: the process that holds the store serves the others.

DuckDB lets one process write a database file. The process that holds it (the app, `watch`, or any CLI
command while it runs) answers on a random port of 127.0.0.1 and writes ENGRAM_HOME/service.json (0600:
pid, port, a random token, what it is). A CLI command that finds the store held sends its arguments there
(memory/forward.py); this side parses them with the CLI's own parser, runs the same command function
through the Engram this process already has (so the app sees every write at once) and streams back what the
command printed, then its exit code. The file goes on a clean exit; one left by a dead process is ignored.

Security: 127.0.0.1 only; every request needs the token (compared in constant time); POST with a JSON body
only; a request that carries an Origin header (a browser) or a foreign Host header is refused; no CORS.
"""
from __future__ import annotations

import _thread
import atexit
import hmac
import json
import logging
import os
import secrets
import signal
import sys
import threading
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from .clock import iso, utc_now
from .files import open_private

if TYPE_CHECKING:
    from .engram import Engram

SERVICE_FILE = "service.json"
MAX_BODY = 8 * 1024 * 1024
STOP_WAIT_S = 120.0  # a stopping holder lets commands it is running finish first
NOT_SERVED = ("watch", "reembed", "restore")  # need the store to themselves, or run for ever
PATH_ARGS = ("file", "batch", "dir", "vault", "from_file")  # relative to the caller's folder
log = logging.getLogger(__name__)


# ------------------------------------------------------------------ the holder file
@dataclass(frozen=True)
class Holder:
    """What service.json says about the process that holds the store."""

    pid: int
    port: int
    token: str
    kind: str  # "app", "watch" or "cli"
    label: str  # how a person would recognise it: "the Engram app (`streamlit run app.py`)"
    started_at: str
    watching: tuple[str, ...] = field(default=())

    def describe(self) -> str:
        return f"{self.label} (pid {self.pid})"

    def is_running(self) -> bool:
        return _alive(self.pid)

    def how_to_stop(self) -> str:
        if self.kind == "cli":
            return "it stops by itself when its command is done"
        return f"press Ctrl+C in its terminal, or run `kill {self.pid}`"


def service_file(home: str | Path) -> Path:
    return Path(home) / SERVICE_FILE


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process took the pid: not an Engram of ours
        return False
    return True


def read_holder(home: str | Path) -> Holder | None:
    """What service.json in `home` says, alive or not; None when there is none, or it is not the user's own
    private file."""
    path = service_file(home)
    try:
        info = path.stat()
        data = json.loads(path.read_text(encoding="utf-8"))
        holder = Holder(pid=int(data["pid"]), port=int(data["port"]), token=str(data["token"]),
                        kind=str(data["kind"]), label=str(data["label"]), started_at=str(data["started_at"]),
                        watching=tuple(data.get("watching") or ()))
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if info.st_uid != os.geteuid() or info.st_mode & 0o077:
        log.warning("ignoring %s: it is not a private file of this user", path)
        return None
    return holder


def find_holder(home: str | Path) -> Holder | None:
    """The live process serving the store in `home`, or None (no file, a file left by a dead process, or one
    that is not the user's own private file)."""
    holder = read_holder(home)
    return holder if holder is not None and holder.is_running() else None


# ------------------------------------------------------- output of forwarded commands
_local = threading.local()


class _ThreadStream:
    """Stands in for sys.stdout/sys.stderr: a thread running a forwarded command writes to its caller,
    every other thread to the real stream."""

    def __init__(self, real, name: str) -> None:
        self._real, self._name = real, name

    def write(self, text: str) -> int:
        emit = getattr(_local, "emit", None)
        if emit is None:
            return self._real.write(text)
        emit(self._name, text)
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if getattr(_local, "emit", None) is None:
            self._real.flush()

    def isatty(self) -> bool:  # no progress bars for a caller on the other end of a socket
        return False if getattr(_local, "emit", None) else self._real.isatty()

    def __getattr__(self, name: str):
        return getattr(self._real, name)


_streams_lock = threading.Lock()


def _install_streams() -> None:
    with _streams_lock:
        for name in ("stdout", "stderr"):
            current = getattr(sys, name)
            if current is not None and not isinstance(current, _ThreadStream):
                setattr(sys, name, _ThreadStream(current, name))


@contextmanager
def _output_to(emit: Callable[[str, str], None]) -> Iterator[None]:
    _local.emit = emit
    try:
        yield
    finally:
        _local.emit = None


_BORROWED: ContextVar["Engram | None"] = ContextVar("engram_borrowed", default=None)


def borrowed_engram() -> "Engram | None":
    """The holder's Engram while a forwarded command runs in this thread (the CLI's `_open` uses it)."""
    return _BORROWED.get()


# --------------------------------------------------------------------- the service
class StoreService:
    """The local service of the process that holds the store in `eng.home`."""

    def __init__(self, eng: "Engram", *, kind: str, label: str,
                 watched: Callable[[], list[Path]] | None = None) -> None:
        self.engram = eng  # replaced when the app opens a newer Engram on the same folder
        self.home = Path(eng.home)
        self.kind, self.label = kind, label
        self.watched = watched or (lambda: [])
        self.started_at = iso(utc_now())
        self.token = secrets.token_urlsafe(32)
        self._active = 0
        self._closing = False
        self._idle = threading.Condition()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._server.daemon_threads = True
        self._server.service = self  # type: ignore[attr-defined]
        self.port = self._server.server_address[1]
        # A short poll: stopping waits for the loop's next poll, and every one-off command stops its service.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="engram-store-service", daemon=True)

    @property
    def holder(self) -> Holder:
        return Holder(os.getpid(), self.port, self.token, self.kind, self.label, self.started_at,
                      tuple(str(p) for p in self.watched()))

    def start(self) -> "StoreService":
        _install_streams()
        self._thread.start()
        path = service_file(self.home)
        partial = path.with_name(f"{SERVICE_FILE}.{os.getpid()}.partial")
        partial.unlink(missing_ok=True)
        with open_private(partial) as out:
            json.dump(asdict(self.holder), out)
        os.replace(partial, path)
        return self

    def stop(self) -> None:
        """No new commands; the file goes; commands already running finish (up to STOP_WAIT_S)."""
        with self._idle:
            if self._closing:
                return
            self._closing = True
        self._remove_file()
        self._server.shutdown()
        with self._idle:
            if not self._idle.wait_for(lambda: self._active == 0, timeout=STOP_WAIT_S):
                log.warning("stopping with %d forwarded command(s) still running", self._active)
        self._server.server_close()

    def _remove_file(self) -> None:
        path = service_file(self.home)
        try:
            if json.loads(path.read_text(encoding="utf-8")).get("token") == self.token:
                path.unlink()
        except (OSError, ValueError):
            pass  # gone already, or another holder's by now

    @contextmanager
    def _request(self) -> Iterator[bool]:
        """Counts a running request; yields False once the service is stopping."""
        with self._idle:
            if self._closing:
                yield False
                return
            self._active += 1
        try:
            yield True
        finally:
            with self._idle:
                self._active -= 1
                self._idle.notify_all()

    # ------------------------------------------------------------- the commands
    def refusal(self, args, embedder: str | None) -> str | None:
        """Why this holder will not run the command for another process, or None."""
        stop = f"stop {self.holder.describe()} first ({self.holder.how_to_stop()})"
        if args.command == "watch":
            return (f"`watch` cannot follow a vault while {self.holder.describe()} holds this memory store: "
                    + ("link the vault on the app's Vault & settings page and the app follows it, "
                       if self.kind == "app" else f"{stop}, ")
                    + f"or run `python -m memory ingest {args.vault}` to index it once")
        if args.command == "reembed":
            return (f"re-embedding replaces every vector at once and needs the store to itself; {stop}"
                    + (", or re-embed from the app's Vault & settings page" if self.kind == "app" else ""))
        if args.command == "restore":
            return (f"a restore replaces the database file, which {self.holder.describe()} has open; {stop}"
                    + (", or use Restore on the app's Vault & settings page" if self.kind == "app" else ""))
        if args.command == "ingest" and _same_folder(args.vault, self.watched()):
            return (f"{args.vault} is followed by {self.holder.describe()} already: its changes are indexed as "
                    f"they happen")
        if embedder:
            from .embed import make_embedder

            wanted, current = make_embedder(embedder), self.engram.embedder
            if (wanted.name, wanted.dim) != (current.name, current.dim):
                return (f"--embedder {embedder} differs from the embedder of {self.holder.describe()} "
                        f"({current.name}); leave --embedder out to use the store's own")
        return None

    def run_command(self, argv: list[str], cwd: str, embedder: str | None,
                    emit: Callable[[str, str], None]) -> int:
        """Parse and run one CLI command through this process's Engram; what it prints goes to `emit`."""
        from . import __main__ as cli

        with _output_to(emit):
            try:
                args = cli.build_parser().parse_args(argv)
            except SystemExit as exc:  # argparse printed why (to the caller)
                return exc.code if isinstance(exc.code, int) else 2
            if args.command == "watch" and _same_folder(args.vault, self.watched()):
                print(f"{args.vault} is followed by {self.holder.describe()} already; nothing to do",
                      file=sys.stderr)
                return 0
            why = self.refusal(args, embedder)
            if why:
                print(f"error: {why}", file=sys.stderr)
                return 1
            for name in PATH_ARGS:
                if getattr(args, name, None):
                    setattr(args, name, str(Path(cwd) / Path(getattr(args, name)).expanduser()))
            eng = self.engram
            borrowed = _BORROWED.set(eng)
            try:  # `check` compares store, index and graph: no write may land in between
                with eng.store.exclusive() if args.command == "check" else nullcontext():
                    return cli.run(args)
            except Exception as exc:  # a fault in one command must not stop the holder; the caller hears it
                log.exception("forwarded command %s failed", args.command)
                print(f"error: {args.command} failed in {self.holder.describe()}: {exc}", file=sys.stderr)
                return 1
            finally:
                _BORROWED.reset(borrowed)

    def release(self) -> str | None:
        """Hand the store over (only `watch` does: it stops as after Ctrl+C); why not, or None."""
        if self.kind != "watch":
            return f"{self.holder.describe()} does not hand the store over; {self.holder.how_to_stop()}"
        print(f"another Engram process asked for the memory store; {self.label} stops and hands it over",
              file=sys.__stderr__, flush=True)
        # as `kill PID` would: `holding` turns SIGTERM into KeyboardInterrupt in the main thread, and `watch` stops
        # closing the store cleanly. Not SIGINT: a watch started in the background by a script inherits SIGINT
        # ignored, and interrupt_main() then does nothing.
        _thread.interrupt_main(signal.SIGTERM)
        return None


def _same_folder(path: str | None, folders: list[Path]) -> bool:
    if not path:
        return False
    try:
        resolved = Path(path).expanduser().resolve()
        return any(resolved == Path(folder).expanduser().resolve() for folder in folders)
    except OSError:
        return False


# ----------------------------------------------------------------------- HTTP
class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"  # the body of a streamed answer ends when the connection closes
    server_version = "Engram"
    sys_version = ""

    def log_message(self, format: str, *args) -> None:  # stderr may be a caller's; keep requests out of it
        log.debug("service: " + format, *args)

    def _refuse(self, status: int, message: str) -> None:
        body = json.dumps({"error": message}).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if status == 405:
            self.send_header("Allow", "POST")
        self.end_headers()
        self.wfile.write(body)

    def _not_post(self) -> None:
        self._refuse(405, "only POST with a JSON body")

    do_GET = do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_post

    def _problem(self, service: StoreService) -> tuple[int, str] | None:
        if self.path not in ("/v1/run", "/v1/release"):
            return 404, "no such endpoint"
        if self.headers.get("Origin") is not None:
            return 403, "browsers may not call this service"
        if self.headers.get("Host") not in (f"127.0.0.1:{service.port}", f"localhost:{service.port}"):
            return 403, "wrong Host header"
        scheme, _, supplied = (self.headers.get("Authorization") or "").partition(" ")
        if scheme != "Bearer" or not supplied:
            return 401, "a token is required (Authorization: Bearer, from service.json in the data folder)"
        if not hmac.compare_digest(supplied.encode(), service.token.encode()):
            return 403, "wrong token"
        if (self.headers.get("Content-Type") or "").split(";")[0].strip().lower() != "application/json":
            return 415, "the body must be JSON (Content-Type: application/json)"
        return None

    def _body(self) -> dict | None:
        try:
            length = int(self.headers.get("Content-Length") or "")
        except ValueError:
            self._refuse(411, "Content-Length is required")
            return None
        if not 0 <= length <= MAX_BODY:
            self._refuse(413, f"the body is larger than {MAX_BODY} bytes")
            return None
        try:
            body = json.loads(self.rfile.read(length) or b"null")
        except ValueError:
            self._refuse(400, "the body is not valid JSON")
            return None
        if not isinstance(body, dict):
            self._refuse(400, "the body must be a JSON object")
            return None
        return body

    def do_POST(self) -> None:
        service: StoreService = self.server.service  # type: ignore[attr-defined]
        problem = self._problem(service)
        if problem:
            return self._refuse(*problem)
        body = self._body()
        if body is None:
            return None
        with service._request() as open_:
            if not open_:
                return self._refuse(503, "the holder is stopping; run the command again")
            if self.path == "/v1/release":
                why = service.release()
                return self._refuse(409, why) if why else self._answer({"released": True})
            return self._run(service, body)

    def _answer(self, data: dict) -> None:
        body = json.dumps(data).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _run(self, service: StoreService, body: dict) -> None:
        argv, cwd, embedder = body.get("argv"), body.get("cwd"), body.get("embedder")
        if not (isinstance(argv, list) and all(isinstance(a, str) for a in argv) and argv):
            return self._refuse(400, "'argv' must be a non-empty list of strings")
        if not (isinstance(cwd, str) and Path(cwd).is_absolute()):
            return self._refuse(400, "'cwd' must be an absolute path")
        if embedder is not None and not isinstance(embedder, str):
            return self._refuse(400, "'embedder' must be a string")
        if Path(body.get("home") or "").resolve() != service.home.resolve():
            return self._refuse(409, f"this service holds the store in {service.home}, not {body.get('home')}")
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.end_headers()
        frames = _Frames(self.wfile)
        code = service.run_command(argv, cwd, embedder, frames.emit)
        frames.send({"exit": code})


class _Frames:
    """One JSON line per piece of output; a caller that went away stops the output, not the command."""

    def __init__(self, wfile) -> None:
        self.wfile = wfile
        self.lock = threading.Lock()
        self.gone = False

    def emit(self, stream: str, text: str) -> None:
        if text:
            self.send({stream: text})

    def send(self, frame: dict) -> None:
        with self.lock:
            if self.gone:
                return
            try:
                self.wfile.write((json.dumps(frame, ensure_ascii=False) + "\n").encode("utf-8", "surrogatepass"))
                self.wfile.flush()
            except OSError:
                self.gone = True


# ------------------------------------------------------------ one service per folder
_serving: dict[Path, StoreService] = {}
_serving_lock = threading.Lock()


def serve(eng: "Engram", *, kind: str, label: str,
          watched: Callable[[], list[Path]] | None = None) -> StoreService | None:
    """Serve `eng`'s store to other processes (one service per data folder and process; a newer Engram on
    the same folder takes the older one's place). None when the store is read-only: nothing is held."""
    if eng.store.path is None or eng.store.read_only:
        return None
    key = Path(eng.home).resolve()
    with _serving_lock:
        service = _serving.get(key)
        if service is not None:
            service.engram = eng
            return service
        try:
            service = StoreService(eng, kind=kind, label=label, watched=watched).start()
        except OSError as exc:  # the command still works; only other processes cannot reach it
            log.warning("could not start the local service for %s: %s", eng.home, exc)
            return None
        _serving[key] = service
        return service


def stop_serving(home: str | Path) -> None:
    with _serving_lock:
        service = _serving.pop(Path(home).resolve(), None)
    if service is not None:
        service.stop()


@contextmanager
def holding(eng: "Engram", *, kind: str, label: str, watched: list[Path] | None = None) -> Iterator["Engram"]:
    """A CLI command's Engram, served to other processes while the command runs, closed at the end."""
    serve(eng, kind=kind, label=label, watched=lambda: list(watched or []))
    try:
        with _interrupt_on_sigterm():
            yield eng
    finally:
        stop_serving(eng.home)
        eng.close()


@contextmanager
def _interrupt_on_sigterm() -> Iterator[None]:
    """`kill PID` (the way to stop a holder that `how_to_stop` names) stops it as Ctrl+C does: the store is
    closed and service.json goes, rather than left behind for the next command to explain."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@atexit.register
def _remove_files() -> None:
    """On a clean exit the holder files go (the daemon threads die with the process)."""
    for service in list(_serving.values()):
        service._remove_file()
