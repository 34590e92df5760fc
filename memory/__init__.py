"""Engram's memory core: store, recall, graph and the write path."""
from .chatlog import ChatMessage
from .engram import Engram
from .errors import (
    BadInputError, EmbedderMismatchError, EngramError, ModelUnavailableError, NotFoundError,
    PromptTooLargeError, StoreDamagedError, StoreLockedError, StoreReadOnlyError,
)
from .model import Entity, Event, MemoryUnit, Provenance, RecallResult, Recollection, Source

__all__ = [
    "BadInputError", "ChatMessage", "EmbedderMismatchError", "Engram", "EngramError", "Entity",
    "Event", "MemoryUnit", "ModelUnavailableError", "NotFoundError", "PromptTooLargeError",
    "Provenance", "RecallResult", "Recollection", "Source", "StoreDamagedError", "StoreLockedError",
    "StoreReadOnlyError",
]
