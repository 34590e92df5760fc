"""One small error tree. Every message names the input that caused it."""


class EngramError(Exception):
    """Base of every error Engram raises on purpose; pages show it with st.error."""


class BadInputError(EngramError, ValueError):
    """Input the user gave (a date, a JSONL line, a path) cannot be used."""


class NotFoundError(EngramError, KeyError):
    """A memory, source or entity id that does not exist."""

    def __str__(self) -> str:  # KeyError quotes its message; we want it plain
        return str(self.args[0]) if self.args else "not found"


class StoreLockedError(EngramError):
    """Another process holds the DuckDB file for writing."""


class StoreDamagedError(EngramError):
    """The database file cannot be read as a DuckDB database (truncated, overwritten, corrupt block)."""

    def __init__(self, path, reason: str, advice: str | None = None) -> None:
        self.path, self.reason = path, reason
        advice = advice or ("Run `python -m memory restore` (or Restore on the Vault & settings page) to go "
                            "back to the last good backup; the damaged file is kept.")
        super().__init__(f"the memory store {path} is damaged ({reason}). {advice}")


class StoreReadOnlyError(EngramError):
    """The data folder or the database file cannot be written; reading may still work."""


class EmbedderMismatchError(EngramError):
    """The store was built with another embedding model; vectors must not be mixed."""


class ModelUnavailableError(EngramError):
    """The chat or embedding model (Ollama) cannot be reached or answered badly."""


class PromptTooLargeError(EngramError):
    """The system prompt and the user's message alone exceed the context window."""
