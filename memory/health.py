"""Health figures (SPEC §3.7): freshness, hit rate, amnesia alerts, latency, backlog, size."""
from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Sequence

import numpy as np

from .clock import iso, utc_now
from .store import Store

FRESHNESS_ALERT = 0.85
HIT_RATE_ALERT = 0.70
AMNESIA_TURNS = 3
AMNESIA_PHRASES = re.compile(
    r"(i\s+don'?t\s+(remember|recall|know)|i\s+do\s+not\s+(remember|recall)|no\s+(memory|record)\s+of|"
    r"i'?m\s+not\s+sure\s+what\s+you|不记得|记不得|没有(相关)?(记录|记忆)|我不知道)",
    re.IGNORECASE,
)


def database_bytes(path: Path | None) -> int:
    """The memory store's size on disk: the DuckDB file and its write-ahead log (0 in memory)."""
    if path is None:
        return 0
    files = (Path(path), Path(f"{path}.wal"))
    return sum(f.stat().st_size for f in files if f.exists())


def megabytes(n: int) -> str:
    """A size as every front end shows it: in MB, one decimal ("8.6 MB")."""
    return f"{n / 1_048_576:.1f} MB"


def amnesia_streak(store: Store, turns: int = AMNESIA_TURNS) -> bool:
    """True when the last `turns` recalls returned nothing and each reply said it does not remember."""
    returns = store.recent_recall_returns(turns)
    replies = store.recent_assistant_replies(turns)
    if len(returns) < turns or len(replies) < turns:
        return False
    return all(not returned for returned in returns) and all(AMNESIA_PHRASES.search(r) for r in replies)


def compute_health(store: Store, *, latencies_ms: Sequence[float] = (), embedder_name: str = "") -> dict:
    """The health figures; `latencies_ms` are this process's recall samples (else the logged ones)."""
    now = utc_now()
    counts = store.memory_counts(now, now + timedelta(days=1))
    total, valid = counts["total"], counts["valid"]
    returned, used = store.recall_totals()
    latencies = list(latencies_ms) or store.recent_recall_latencies(1000)
    freshness = valid / total if total else 1.0
    hit_rate = used / returned if returned else None
    alerts = []
    if total and freshness < FRESHNESS_ALERT:
        alerts.append(f"freshness {freshness:.0%} is below {FRESHNESS_ALERT:.0%}")
    if hit_rate is not None and hit_rate < HIT_RATE_ALERT:
        alerts.append(f"hit rate {hit_rate:.0%} is below {HIT_RATE_ALERT:.0%}")
    amnesia = amnesia_streak(store)
    if amnesia:
        alerts.append(f"amnesia: the last {AMNESIA_TURNS} turns recalled nothing and said so")
    size = database_bytes(store.path)
    return {
        "at": iso(now),
        "memories": total, "valid": valid, "archived": counts["archived"], "superseded": counts["superseded"],
        "expired": counts["expired"], "expiring_24h": counts["expiring"], "chat_turns": counts["chat_turns"],
        "sources": store.count("sources"), "entities": store.count("entities"),
        "freshness": round(freshness, 4), "freshness_alert": FRESHNESS_ALERT,
        "hit_rate": round(hit_rate, 4) if hit_rate is not None else None, "hit_rate_alert": HIT_RATE_ALERT,
        "amnesia_alert": amnesia, "alerts": alerts,
        "recall_latency_ms": {
            "p50": round(float(np.percentile(latencies, 50)), 2) if latencies else None,
            "p95": round(float(np.percentile(latencies, 95)), 2) if latencies else None,
            "samples": len(latencies),
        },
        "db_bytes": size, "embedder": embedder_name,
    }


def freshness_series(store: Store, days: int = 90, points: int = 30) -> list[dict]:
    """Freshness at evenly spaced past moments (as the two clocks say it was then)."""
    now = utc_now()
    out = []
    for n in range(points, -1, -1):
        at = now - timedelta(days=days * n / points)
        total, valid = store.freshness_counts(at)
        out.append({"at": iso(at), "memories": total, "valid": valid,
                    "freshness": round(valid / total, 4) if total else None})
    return out


def recall_series(store: Store, days: int = 30) -> list[dict]:
    """Per day: recalls made in chat, memories returned and used, hit rate, p95 latency."""
    rows = store.recall_log_by_day(utc_now() - timedelta(days=days))
    return [{"day": day.date().isoformat(), "recalls": n, "returned": int(r or 0), "used": int(u or 0),
             "hit_rate": round(u / r, 4) if r else None, "p95_ms": round(p95 or 0, 1)}
            for day, n, r, u, p95 in rows]


def purgeable_ids(store: Store) -> list[int]:
    """Memories a purge forgets: archived or past their validity (superseded ones included)."""
    return store.archived_or_ended_ids(utc_now())


def latency_label(p50: float | None, p95: float | None) -> str:
    """Recall latency p50 / p95 as every front end shows it."""
    if p50 is None or p95 is None:
        return "—"
    return f"{p50:.0f} / {p95:.0f} ms" if p50 >= 10 else f"{p50:.1f} / {p95:.1f} ms"


def health_lines(figures: dict) -> list[str]:
    """The health figures as the CLI prints them, with the pages' labels and units."""
    latency = figures["recall_latency_ms"]
    hit_rate = figures["hit_rate"]
    lines = [
        f"memories: {figures['memories']:,} ({figures['valid']:,} valid, {figures['superseded']:,} superseded, "
        f"{figures['expired']:,} expired, {figures['archived']:,} archived, {figures['expiring_24h']:,} expiring "
        f"in 24 h) · chat turns: {figures['chat_turns']:,}",
        f"freshness: {figures['freshness']:.0%} (alert below {FRESHNESS_ALERT:.0%})",
        f"hit rate: {'—' if hit_rate is None else f'{hit_rate:.0%}'} (alert below {HIT_RATE_ALERT:.0%})",
        f"amnesia alert: {'ON' if figures['amnesia_alert'] else 'off'}",
        f"recall latency p50 / p95: {latency_label(latency['p50'], latency['p95'])} "
        f"(over the last {latency['samples']:,} recalls)",
        f"sources: {figures['sources']:,} · entities: {figures['entities']:,} · database: "
        f"{megabytes(figures['db_bytes'])} · embedder: {figures['embedder']}",
    ]
    return lines + [f"alert: {alert}" for alert in figures["alerts"]]
