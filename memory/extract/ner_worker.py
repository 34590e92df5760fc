"""The NER helper process (`ner_helper` starts it): segments in, each segment's entities out, until its
input pipe closes."""
from __future__ import annotations

import os
import sys

from .entities import ner_rows
from .ner_helper import receive, send


def serve(read_fd: int, write_fd: int) -> None:
    ner_rows(["warm up"])
    with os.fdopen(read_fd, "rb") as incoming, os.fdopen(write_fd, "wb") as outgoing:
        while True:
            try:
                segments = receive(incoming)
            except EOFError:
                return
            send(outgoing, ner_rows(segments))


if __name__ == "__main__":
    serve(int(sys.argv[1]), int(sys.argv[2]))
