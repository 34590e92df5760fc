"""Han script ranges and the jieba segmenter, shared by entity spans, `compress` and search tokens."""
from __future__ import annotations

import logging
import re
import threading
from typing import Any

HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
WIDE = f"{HAN}\u3000-\u303f\uff00-\uffef"  # Han plus CJK punctuation and full-width forms
HAN_CHAR = re.compile(f"[{HAN}]")
HAN_RUN = re.compile(f"[{HAN}]+")

_JIEBA_LOCK = threading.Lock()
_jieba: Any = None


def jieba_module() -> Any:
    """jieba, initialised once with its log silenced (its cache lives in the temp dir)."""
    global _jieba
    if _jieba is None:
        with _JIEBA_LOCK:
            if _jieba is None:
                import jieba

                jieba.setLogLevel(logging.WARNING)
                jieba.initialize()
                _jieba = jieba
    return _jieba
