"""The vault sync as a background service for the app: the first sync in a thread, then watching."""
from __future__ import annotations

import threading
from pathlib import Path

from memory import Engram, EngramError

from .service import VaultSync


class VaultRunner:
    """Runs the vault's initial sync in a background thread, then keeps watching.

    `ready` is set once every note is stored and keyword-searchable; the vectors a first ingest leaves
    pending are filled after that (`vectors`: filled, total), and `done` is set when they are."""

    def __init__(self, eng: Engram, vault_path: str | Path) -> None:
        self.sync = VaultSync(eng, vault_path)
        self.progress = (0, 0)
        self.error: str | None = None
        self.ready = threading.Event()
        self.done = threading.Event()
        threading.Thread(target=self._start, name="engram-vault-sync", daemon=True).start()

    @property
    def vectors(self) -> tuple[int, int]:
        return self.sync.vectors

    def _start(self) -> None:
        try:
            self.sync.start(progress=self._on_progress, keyword_ready=lambda report: self.ready.set())
        except EngramError as exc:
            self.error = str(exc)
        except Exception as exc:  # shown on the settings page with what to do
            self.error = f"vault sync failed: {exc}"
        finally:
            self.ready.set()
            self.done.set()

    def _on_progress(self, done: int, total: int) -> None:
        self.progress = (done, total)
