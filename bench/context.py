"""Prompt size per turn: Engram's assembled context vs pasting the whole history.

    python bench/context.py [--turns 60] [--embedder hash]

A scripted conversation states key facts in turns 1–5, then small talk follows. Each turn is
assembled exactly as the chat does (recall, anchor, summary, recent turns, user message); the
assistant's replies are scripted (no model is needed to measure the prompt). The baseline is the
system prompt plus every earlier message plus the new one, counted with the same tokenizer.
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory import Engram  # noqa: E402
from memory.chat import SYSTEM_PROMPT, Chat  # noqa: E402
from memory.context import messages_tokens  # noqa: E402
from memory.embed import make_embedder  # noqa: E402

KEY_FACTS = {
    "My name is Ada Lovelace.": "Ada Lovelace",
    "I drink oat latte.": "oat latte",
    "I live in Lisbon.": "Lisbon",
    "remember that my order number is ORD-2026-0042": "ORD-2026-0042",
    "I work at Calder Labs.": "Calder Labs",
}
SMALL_TALK = [
    "The weather has been lovely this week, sunny mornings and a cool breeze in the evening.",
    "I watched a long documentary about whales last night; the songs they sing are astonishing.",
    "Lunch today was a sandwich with tomatoes from the market, nothing special but tasty.",
    "My cat spent the whole afternoon asleep on the windowsill in the sun again.",
    "Traffic was slow this morning because of roadworks near the bridge.",
    "I have been thinking about taking up the piano again after all these years.",
]
REPLY = ("That sounds lovely. It is nice to notice small things like that during the day; "
         "tell me more if you like, or ask me anything you need help with.")


def run(turns: int, embedder_spec: str) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as home:
        eng = Engram(home, embedder=make_embedder(embedder_spec))
        chat = Chat(eng, None, context_window=8192)
        history: list[dict] = []
        facts = list(KEY_FACTS)
        for n in range(turns):
            text = facts[n] if n < len(facts) else f"{SMALL_TALK[n % len(SMALL_TALK)]} (turn {n + 1})"
            prepared = chat.turn(text, session_id="bench")
            prompt = prepared.outcome.prompt
            full = [{"role": "system", "content": SYSTEM_PROMPT}, *history, {"role": "user", "content": text}]
            sent = "\n".join(m["content"] for m in prompt.messages)
            rows.append({
                "turn": n + 1, "engram": prompt.tokens, "full": messages_tokens(full),
                "facts": sum(1 for needle in KEY_FACTS.values() if needle in sent),
            })
            prepared.outcome.reply = REPLY
            chat.finish(prepared.outcome)
            history += [{"role": "user", "content": text}, {"role": "assistant", "content": REPLY}]
        eng.close()
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--embedder", default="hash")
    args = parser.parse_args()
    rows = run(args.turns, args.embedder)
    print(f"\nPrompt tokens per turn ({args.turns}-turn scripted conversation, key facts in turns 1–5)\n")
    print("| turn | Engram prompt | full history | Engram / full | key facts in prompt |")
    print("|---|---|---|---|---|")
    for row in rows:
        if row["turn"] in (1, 5, 10, 20, 30, 40, 50, 60) or row["turn"] == args.turns:
            print(f"| {row['turn']} | {row['engram']} | {row['full']} | {row['engram'] / row['full']:.1%} | "
                  f"{row['facts']}/{len(KEY_FACTS)} |")


if __name__ == "__main__":
    main()
