"""The command line: `python -m memory COMMAND …` (SPEC §4.2)."""
from __future__ import annotations

import argparse
import json
import sys
from contextlib import nullcontext
from pathlib import Path

from .clock import iso, parse_when
from .errors import BadInputError, EngramError, StoreLockedError


MAX_K = 1000


def _k(value: str) -> int:
    """--k: a whole number of results from 1 to MAX_K."""
    try:
        k = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--k must be a whole number, not {value!r}") from None
    if not 1 <= k <= MAX_K:
        raise argparse.ArgumentTypeError(f"--k must be between 1 and {MAX_K}, not {k}")
    return k


def _common() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--home", default=argparse.SUPPRESS, help="data folder (default $ENGRAM_HOME or ~/.engram)")
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    common.add_argument("--embedder", default=argparse.SUPPRESS,
                        help="local, local-int8, local-static, hash, or ollama:<model> (default $ENGRAM_EMBEDDER, "
                             "else the one chosen on the settings page, else the one the memory was built with, "
                             "else local)")
    return common


def build_parser() -> argparse.ArgumentParser:
    common = _common()
    parser = argparse.ArgumentParser(prog="python -m memory", parents=[common],
                                     description="Engram: a personal memory with two clocks and sources.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("remember", parents=[common], help="write one chat message")
    p.add_argument("text")
    p.add_argument("--at", help="when it was said (ISO date or datetime)")
    p.add_argument("--session", default="default")
    p.add_argument("--role", default="user", choices=["user", "assistant"])
    p.add_argument("--id", dest="message_id", help="the message's own id")

    p = sub.add_parser("import-chat", parents=[common], help="import a JSONL chat file")
    p.add_argument("file")

    p = sub.add_parser("recall", parents=[common], help="recall memories for a query")
    p.add_argument("query", nargs="?")
    p.add_argument("--as-of", help="what was true then, by all Engram knows now (ISO date or datetime)")
    p.add_argument("--recorded-by", help="only what Engram had recorded by then (ISO date or datetime); "
                                         "also the default --as-of")
    p.add_argument("--k", type=_k, default=10, help=f"how many results (1–{MAX_K})")
    p.add_argument("--batch", help="JSONL file of {query, as_of?, k?}: one JSON result per line (the query "
                                   f"echoed as its first {BATCH_QUERY_ECHO} characters)")
    p.add_argument("--full", action="store_true", help="print each memory's whole text (default: a snippet)")

    p = sub.add_parser("ask", parents=[common], help="one chat turn (model, or offline recall mode)")
    p.add_argument("question")
    p.add_argument("--session", default="default")
    p.add_argument("--as-of", help="chat with what was known then (ISO date or datetime)")

    sub.add_parser("health", parents=[common], help="health figures")
    p = sub.add_parser("export", parents=[common], help="export everything to a folder")
    p.add_argument("dir")
    p.add_argument("--force", action="store_true", help="overwrite files an earlier export left in DIR")
    p = sub.add_parser("forget", parents=[common], help="forget one memory for good")
    p.add_argument("id", type=int)
    p.add_argument("--reason", default="")
    p = sub.add_parser("ingest", parents=[common], help="index a vault once")
    p.add_argument("vault")
    p = sub.add_parser("watch", parents=[common], help="index a vault, then follow its changes")
    p.add_argument("vault")
    sub.add_parser("reembed", parents=[common], help="re-embed all memories with the current embedder")
    sub.add_parser("check", parents=[common], help="do the store, the index and the graph agree?")
    sub.add_parser("backup", parents=[common], help="take a rolling backup now (one is also taken daily)")
    p = sub.add_parser("restore", parents=[common], help="go back to the last good backup")
    p.add_argument("--from", dest="from_file", help="restore this backup file instead")
    p.add_argument("--list", action="store_true", help="list the backups, newest first")
    return parser


def _open(args, *, writes: bool = True, **kwargs):
    """The Engram for a command; one that `writes` is refused at once when the store cannot be changed.

    Run for another process by the one that holds the store, the command borrows that process's Engram;
    run here, it opens its own and serves it to other processes until it ends (memory/service.py)."""
    from .service import borrowed_engram, holding

    borrowed = borrowed_engram()
    if borrowed is not None:
        if writes:
            borrowed.store.check_writable()
        return nullcontext(borrowed)
    from .embed import chosen_embedder
    from .engram import Engram, resolve_home
    from .settings import load_settings

    home = resolve_home(getattr(args, "home", None))
    # the command's --embedder, else the app's choice (ENGRAM_EMBEDDER, the settings page), else the memory's own
    spec = getattr(args, "embedder", None) or load_settings(home).embedder
    eng = Engram(home, embedder=chosen_embedder(spec), **kwargs)
    if eng.store.read_only_reason:
        if writes:
            eng.close()
            eng.store.check_writable()
        print(f"note: {eng.store.read_only_reason}; opened read-only (recall, health and export work, "
              f"changes are refused)", file=sys.stderr)
    vault = getattr(args, "vault", None)
    label = f"`python -m memory {args.command}{f' {vault}' if vault else ''}`"
    return holding(eng, kind="watch" if args.command == "watch" else "cli", label=label,
                   watched=[Path(vault).expanduser().resolve()] if args.command == "watch" else None)


def _progress(total: int, desc: str, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, desc=desc, unit="msg", file=sys.stderr, disable=not enabled or None)


def _emit(args, data, human: str) -> None:
    print(json.dumps(data, ensure_ascii=False) if getattr(args, "json", False) else human)


def cmd_remember(args) -> int:
    at = parse_when(args.at, what="--at date")
    with _open(args) as eng:
        report = eng.remember(args.text, at=at, session_id=args.session, role=args.role,
                              message_id=args.message_id)
    _emit(args, report.as_json(),
          f"already remembered: message {args.message_id} of session {args.session} is stored (nothing added)"
          if report.skipped else
          f"remembered: {report.memories} memories, {report.superseded} superseded, "
          f"{report.confirmations} confirmed (turn #{report.turn_ids[0]})")
    return 0


def cmd_import_chat(args) -> int:
    from .chatlog import read_jsonl

    messages = read_jsonl(args.file)
    with _open(args) as eng:
        with _progress(len(messages), "importing", not getattr(args, "json", False)) as bar:
            report = eng.import_messages(messages, progress=bar.update)
    _emit(args, report.as_json(),
          f"imported {report.turns} messages: {report.memories} memories, {report.superseded} superseded, "
          f"{report.entities} entities" + (f"; {report.skipped} already stored, skipped" if report.skipped else ""))
    return 0


BATCH_QUERY_ECHO = 80
SNIPPET = (160, 80)  # Latin, CJK characters of a recall result's text (--full for all of it)


def _prefix(text: str, limit: int = BATCH_QUERY_ECHO) -> str:
    """The start of a long text, marked as cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _read_batch(path: str) -> list[dict]:
    file = Path(path)
    if not file.is_file():
        raise BadInputError(f"batch file {path} does not exist")
    queries = []
    for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise BadInputError(f"{path}:{number}: malformed JSON ({exc.msg})") from None
        if not isinstance(obj, dict) or not isinstance(obj.get("query"), str):
            raise BadInputError(f"{path}:{number}: expected an object with a string 'query'")
        if not obj["query"].strip():
            raise BadInputError(f"{path}:{number}: the query is empty")
        if obj.get("k") is not None:
            try:
                obj["k"] = _k(str(obj["k"]))
            except argparse.ArgumentTypeError as exc:
                raise BadInputError(f"{path}:{number}: {str(exc).replace('--k', 'k')}") from None
        obj["as_of"] = parse_when(obj.get("as_of"), what=f"'as_of' in {path}:{number}")
        queries.append(obj)
    return queries


def cmd_recall(args) -> int:
    if args.batch:
        queries = _read_batch(args.batch)
        with _open(args, writes=False) as eng:
            for q in queries:
                result = eng.recall(q["query"], as_of=q["as_of"], k=int(q.get("k") or args.k))
                data = result.as_json()
                data["query"] = _prefix(q["query"])  # the caller has the query: only enough to match it up
                print(json.dumps(data, ensure_ascii=False), flush=True)
        return 0
    if args.query is None:
        raise BadInputError("recall needs a QUERY or --batch FILE")
    if not args.query.strip():
        raise BadInputError("the query is empty: give some words to recall by")
    as_of = parse_when(args.as_of, what="--as-of date")
    recorded_by = parse_when(args.recorded_by, what="--recorded-by date")
    with _open(args, writes=False) as eng:
        result = eng.recall(args.query, as_of=as_of or recorded_by, k=args.k, recorded_by=recorded_by)
    if getattr(args, "json", False):
        print(json.dumps(result.as_json(), ensure_ascii=False))
        return 0
    asked = (f"what Engram had recorded by {iso(recorded_by)} (system time)" if recorded_by
             else f"what was true on {iso(result.as_of)} (world time)")
    print(f"{asked} — {'confident' if result.confident else 'NOT confident'}")
    for number, rec in enumerate(result.results, start=1):
        print(_result_lines(number, rec, result.as_of, full=args.full))
    return 0


def _result_lines(number: int, rec, as_of, *, full: bool) -> str:
    """One recall result: its text (a snippet unless `full`), then id, score, validity and source."""
    from .obsidian import snippet
    from .temporal import state_label

    u, src = rec.unit, rec.provenance
    where = src.ref or "-"
    if src.lines:
        where += f":{src.lines[0]}-{src.lines[1]}"
    if src.message_id:
        where += f" #{src.message_id}"
    span = f"{u.valid_from:%Y-%m-%d} → {u.valid_until:%Y-%m-%d}" if u.valid_until else f"since {u.valid_from:%Y-%m-%d}"
    state = f"valid {span}" if rec.valid else state_label(u, as_of, valid=False)
    text = u.content.strip() if full else snippet(u.content, *SNIPPET)
    if full:
        text = text.replace("\n", "\n    ")
    return f"{number:2}. [{u.type}] {text}\n    m:{u.id} · score {rec.score:.2f} · {state} · {src.kind} {where}"


def cmd_ask(args) -> int:
    from .chat import Chat
    from .llm import ChatModel, how_to_start_ollama
    from .settings import load_settings

    as_of = parse_when(args.as_of, what="--as-of date")
    with _open(args) as eng:
        settings = load_settings(eng.home)
        model = ChatModel(settings.ollama_url, settings.model, context_window=settings.context_window,
                          request_timeout=settings.request_timeout)
        chat = Chat(eng, model, context_window=settings.context_window, llm_extraction=settings.llm_extraction)
        try:
            prepared = chat.turn(args.question, session_id=args.session, as_of=as_of)
            if getattr(args, "json", False):
                for _ in prepared.stream():
                    pass
                print(json.dumps(prepared.outcome.as_json(), ensure_ascii=False))
            else:
                for delta in prepared.stream():
                    print(delta, end="", flush=True)
                print()
                if prepared.outcome.offline:  # the reply says it is offline; the steps are said here, once
                    print(f"\n{how_to_start_ollama(model.model)}", file=sys.stderr)
        finally:
            model.close()
    return 0


def cmd_health(args) -> int:
    from .health import health_lines

    with _open(args, writes=False) as eng:
        figures = eng.health()
    _emit(args, figures, "\n".join(health_lines(figures)))
    return 0


def cmd_export(args) -> int:
    with _open(args, writes=False) as eng:
        counts = eng.export(args.dir, force=args.force)
    _emit(args, {"dir": args.dir, "counts": counts},
          f"exported to {args.dir}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    return 0


def cmd_forget(args) -> int:
    with _open(args) as eng:
        eng.forget(args.id, reason=args.reason)
    _emit(args, {"forgotten": args.id}, f"forgot memory {args.id} (an audit line records that, not the content)")
    return 0


def cmd_reembed(args) -> int:
    with _open(args, allow_embedder_change=True) as eng:
        total = eng.store.count("memories")
        with _progress(total, "re-embedding", not getattr(args, "json", False)) as bar:
            count = eng.reembed(progress=bar.update)
    _emit(args, {"reembedded": count}, f"re-embedded {count} memories with {eng.embedder.name}")
    return 0


def cmd_check(args) -> int:
    with _open(args, writes=False) as eng:
        eng.graph()
        report = eng.check()
    checked = ", ".join(f"{v} {k}" for k, v in report.checked.items())
    human = (f"consistent: store, index and graph agree ({checked})" if report.clean else
             "\n".join([f"{sum(report.counts.values())} differences ({checked}):"] + report.differences))
    _emit(args, report.as_json(), human)
    return 0 if report.clean else 1


def cmd_backup(args) -> int:
    with _open(args) as eng:
        backup = eng.backup()
    _emit(args, {"backup": str(backup.path), "taken_at": backup.taken_at.isoformat(), "bytes": backup.size},
          f"backed up to {backup.path} ({backup.size / 1_048_576:.1f} MB)")
    return 0


def cmd_restore(args) -> int:
    from .backups import list_backups, restore
    from .engram import database_path

    database = database_path(getattr(args, "home", None))
    if args.list:
        backups = list_backups(database)
        _emit(args, [{"backup": str(b.path), "taken_at": b.taken_at.isoformat(), "bytes": b.size} for b in backups],
              "\n".join(f"{b.label()}  {b.size / 1_048_576:8.1f} MB  {b.path}" for b in backups)
              or f"no backups in {database.parent / 'backups'}")
        return 0
    report = restore(database, Path(args.from_file) if args.from_file else None)
    for path, problem in report.skipped:
        print(f"skipped {path}: {problem}", file=sys.stderr)
    _emit(args, report.as_json(), report.summary())
    return 0


def _print_sync(args, report, title: str) -> None:
    if getattr(args, "json", False):
        print(json.dumps(report.as_json(), ensure_ascii=False))
        return
    print(f"{title}: {report.notes} notes ({report.indexed} indexed, {report.unchanged} unchanged, "
          f"{report.renamed} renamed, {report.deleted} deleted), {report.chunks} chunks, "
          f"{report.entities} entities, {report.links} links ({report.links_resolved} resolved), "
          f"{report.attachments} attachments in {report.seconds:.1f} s")
    if report.vectors_filled or report.vectors_pending:
        print(f"  keyword search was ready after {report.keyword_ready_s:.1f} s; {report.vectors_filled} vectors "
              f"embedded after that" + (f", {report.vectors_pending} still pending (the next sync goes on)"
                                       if report.vectors_pending else ""))
    for path, reason in report.skipped:
        print(f"  skipped {path}: {reason}")
    for path, reason in report.limited:
        print(f"  {path}: {reason}")
    for warning in report.warnings:
        print(f"  warning {warning}")


def cmd_ingest(args) -> int:
    from vault_sync.sync import VaultIndexer

    with _open(args) as eng:
        indexer = VaultIndexer(eng, args.vault)
        bar = _progress(0, "indexing", not getattr(args, "json", False))

        def progress(done: int, total: int) -> None:
            bar.set_description("indexing", refresh=False)
            bar.total = total
            bar.n = done
            bar.refresh()

        def scanning(files: int) -> None:
            bar.set_description(f"scanning ({files:,} files seen)")

        vector_bar = []  # made once keyword search is ready and vectors are pending

        def keyword_ready(report) -> None:
            bar.close()
            pending = eng.store.pending_vector_count()
            if pending and not getattr(args, "json", False):
                print(f"keyword search ready after {report.keyword_ready_s:.1f} s ({report.indexed} notes, "
                      f"{report.chunks} chunks); embedding {pending} passages for meaning search", file=sys.stderr)
                vector_bar.append(_progress(pending, "vectors", True))

        def vectors(filled: int, total: int) -> None:
            for each in vector_bar:
                each.total, each.n = total, filled
                each.refresh()

        with bar:
            report = indexer.sync_all(progress=progress, scanning=scanning, keyword_ready=keyword_ready,
                                      vectors=vectors)
        for each in vector_bar:
            each.close()
    _print_sync(args, report, f"ingested {args.vault}")
    return 0


def cmd_watch(args) -> int:
    from vault_sync.service import VaultSync

    with _open(args) as eng:
        sync = VaultSync(eng, args.vault)
        try:  # a stop (Ctrl+C, kill) during the first sync is a stop too: what was indexed stays
            report = sync.start()
            _print_sync(args, report, f"indexed {args.vault}")
            print("watching for changes; press Ctrl+C to stop", file=sys.stderr)
            sync.wait(on_report=lambda r: _print_sync(args, r, "synced"))
        except KeyboardInterrupt:
            pass
        finally:
            sync.stop()
    return 0


COMMANDS = {
    "ingest": cmd_ingest, "watch": cmd_watch,
    "remember": cmd_remember, "import-chat": cmd_import_chat, "recall": cmd_recall,
    "health": cmd_health, "ask": cmd_ask, "export": cmd_export, "forget": cmd_forget, "reembed": cmd_reembed,
    "check": cmd_check, "backup": cmd_backup, "restore": cmd_restore,
}


def run(args) -> int:
    """Run one parsed command in this process: its exit code, errors printed as messages.
    StoreLockedError passes through: main() then hands the command to the process that holds the store."""
    try:
        return COMMANDS[args.command](args)
    except StoreLockedError:
        raise
    except BadInputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except EngramError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:  # a file Engram had to read or write: the message names it
        print(f"error: {exc.strerror or exc}: {exc.filename or ''}".rstrip(": "), file=sys.stderr)
        return 1


def main(argv: list[str] | None = None) -> int:
    from .forward import dispatch

    argv = sys.argv[1:] if argv is None else list(argv)
    return dispatch(build_parser().parse_args(argv), argv, run)


if __name__ == "__main__":
    sys.exit(main())
