"""The context a chat message is also found by: the two turns before it, a turn being what one speaker
sends before the other answers.

In a chat app people send a turn as several messages ("omg" / "guess what" / "I got the job at Arup!").
Counted by messages, the context of "I got the job" would be the speaker's own "omg" and "guess what",
not the question it answers. So messages are grouped into runs of one speaker: a message that continues
a run is found by the run's earlier messages and the run before; a message that starts a run, by the two
runs before it. Where speakers alternate, each run is one message and this is the two messages before.
Until a second speaker has spoken in the session there are no turns to tell apart (a chat exported with only
the user's side, a monologue): a message is then read against the two messages before it."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

CONTEXT_RUNS = 2  # turns whose words a chat message is also found by (as context keys)
RUN_MESSAGES = 8  # the last messages of a long run that count as its words


@dataclass
class _Run:
    speaker: tuple[str, str]
    messages: deque = field(default_factory=lambda: deque(maxlen=RUN_MESSAGES))


class TurnWindow:
    """The last turns of one chat session, as keyword tokens per message."""

    def __init__(self) -> None:
        self._runs: deque[_Run] = deque(maxlen=CONTEXT_RUNS)
        self._speakers: set[tuple[str, str]] = set()

    def context(self) -> list[str]:
        """Tokens of the turns a new message is read against, oldest first: the run it continues (its
        earlier messages) and the one before, or, when it starts a run, the two before it."""
        if len(self._speakers) < 2:  # no turns to tell apart yet: the two messages before
            recent = list(self._runs[-1].messages)[-CONTEXT_RUNS:] if self._runs else []
            return [token for tokens in recent for token in tokens]
        return [token for run in self._runs for tokens in run.messages for token in tokens]

    def add(self, speaker: tuple[str, str], tokens: list[str]) -> None:
        self._speakers.add(speaker)
        if not self._runs or self._runs[-1].speaker != speaker:
            self._runs.append(_Run(speaker))
        self._runs[-1].messages.append(tokens)
