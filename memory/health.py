"""Health figures (SPEC §3.7): freshness, hit rate, amnesia alerts, latency, backlog, size."""
from __future__ import annotations

import re
from datetime import timedelta
from typing import TYPE_CHECKING

import numpy as np

from .clock import iso, utc_now
from .store import db_time

if TYPE_CHECKING:
    from .engram import Engram

FRESHNESS_ALERT = 0.85
HIT_RATE_ALERT = 0.70
AMNESIA_TURNS = 3
AMNESIA_PHRASES = re.compile(
    r"(i\s+don'?t\s+(remember|recall|know)|i\s+do\s+not\s+(remember|recall)|no\s+(memory|record)\s+of|"
    r"i'?m\s+not\s+sure\s+what\s+you|不记得|记不得|没有(相关)?(记录|记忆)|我不知道)",
    re.IGNORECASE,
)


def amnesia_streak(eng: "Engram", turns: int = AMNESIA_TURNS) -> bool:
    """True when the last `turns` recalls returned nothing and each reply said it does not remember."""
    logs = eng.store.query("SELECT returned FROM recall_log ORDER BY logged_at DESC LIMIT ?", [turns])
    replies = eng.store.query(
        "SELECT text FROM events WHERE kind = 'chat_turn' AND role = 'assistant' ORDER BY occurred_at DESC, id DESC LIMIT ?",
        [turns],
    )
    if len(logs) < turns or len(replies) < turns:
        return False
    return all(not (row[0] or []) for row in logs) and all(AMNESIA_PHRASES.search(r[0] or "") for r in replies)


def compute_health(eng: "Engram") -> dict:
    now = utc_now()
    t = db_time(now)
    store = eng.store
    (total, valid, archived, superseded, expired, expiring) = store.query(
        """SELECT count(*),
                  count(*) FILTER (WHERE NOT archived AND superseded_at IS NULL
                                   AND (valid_until IS NULL OR valid_until > ?)),
                  count(*) FILTER (WHERE archived),
                  count(*) FILTER (WHERE superseded_at IS NOT NULL),
                  count(*) FILTER (WHERE valid_until IS NOT NULL AND valid_until <= ?),
                  count(*) FILTER (WHERE valid_until > ? AND valid_until <= ?)
           FROM memories WHERE type <> 'chat_turn'""",
        [t, t, t, db_time(now + timedelta(days=1))],
    )[0]
    turns = store.query("SELECT count(*) FROM memories WHERE type = 'chat_turn'")[0][0]
    returned, used = store.query(
        "SELECT coalesce(sum(len(returned)), 0), coalesce(sum(len(used)), 0) FROM recall_log"
    )[0]
    latencies = list(eng.latencies_ms) or [r[0] for r in store.query(
        "SELECT latency_ms FROM recall_log ORDER BY logged_at DESC LIMIT 1000")]
    freshness = valid / total if total else 1.0
    hit_rate = used / returned if returned else None
    alerts = []
    if total and freshness < FRESHNESS_ALERT:
        alerts.append(f"freshness {freshness:.0%} is below {FRESHNESS_ALERT:.0%}")
    if hit_rate is not None and hit_rate < HIT_RATE_ALERT:
        alerts.append(f"hit rate {hit_rate:.0%} is below {HIT_RATE_ALERT:.0%}")
    amnesia = amnesia_streak(eng)
    if amnesia:
        alerts.append(f"amnesia: the last {AMNESIA_TURNS} turns recalled nothing and said so")
    size = eng.store.path.stat().st_size if eng.store.path and eng.store.path.exists() else 0
    return {
        "at": iso(now),
        "memories": total, "valid": valid, "archived": archived, "superseded": superseded,
        "expired": expired, "expiring_24h": expiring, "chat_turns": turns,
        "sources": store.count("sources"), "entities": store.count("entities"),
        "freshness": round(freshness, 4), "freshness_alert": FRESHNESS_ALERT,
        "hit_rate": round(hit_rate, 4) if hit_rate is not None else None, "hit_rate_alert": HIT_RATE_ALERT,
        "amnesia_alert": amnesia, "alerts": alerts,
        "recall_latency_ms": {
            "p50": round(float(np.percentile(latencies, 50)), 2) if latencies else None,
            "p95": round(float(np.percentile(latencies, 95)), 2) if latencies else None,
            "samples": len(latencies),
        },
        "db_bytes": size, "embedder": eng.embedder.name,
    }


def freshness_series(eng: "Engram", days: int = 90, points: int = 30) -> list[dict]:
    """Freshness at evenly spaced past moments (as the two clocks say it was then)."""
    now = utc_now()
    out = []
    for n in range(points, -1, -1):
        t = db_time(now - timedelta(days=days * n / points))
        total, valid = eng.store.query(
            """SELECT count(*) FILTER (WHERE recorded_at <= ?),
                      count(*) FILTER (WHERE recorded_at <= ? AND valid_from <= ?
                                       AND (valid_until IS NULL OR valid_until > ?)
                                       AND (superseded_at IS NULL OR superseded_at > ?))
               FROM memories WHERE type <> 'chat_turn'""",
            [t, t, t, t, t],
        )[0]
        out.append({"at": iso(now - timedelta(days=days * n / points)), "memories": total, "valid": valid,
                    "freshness": round(valid / total, 4) if total else None})
    return out


def recall_series(eng: "Engram", days: int = 30) -> list[dict]:
    """Per day: recalls made in chat, memories returned and used, hit rate, p95 latency."""
    rows = eng.store.query(
        """SELECT date_trunc('day', logged_at) AS day, count(*), sum(len(returned)), sum(len(used)),
                  quantile_cont(latency_ms, 0.95)
           FROM recall_log WHERE logged_at >= ? GROUP BY day ORDER BY day""",
        [db_time(utc_now() - timedelta(days=days))],
    )
    return [{"day": day.date().isoformat(), "recalls": n, "returned": int(r or 0), "used": int(u or 0),
             "hit_rate": round(u / r, 4) if r else None, "p95_ms": round(p95 or 0, 1)}
            for day, n, r, u, p95 in rows]
