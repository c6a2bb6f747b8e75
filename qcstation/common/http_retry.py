"""HTTP retry rules shared by the generation client and the evaluation backends.

Kept free of the ``openai`` package so that importing it stays cheap.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping

PLACEHOLDER_KEY = "sk-no-key"                          # local servers without auth
RETRY_STATUSES = frozenset({408, 409, 429})          # plus every 5xx
RETRY_AFTER_STATUSES = frozenset({429, 503})


def parse_retry_after(headers: Mapping[str, str], now_ts: float | None = None) -> float | None:
    """Seconds to wait from ``retry-after-ms`` or ``Retry-After`` (delta-seconds or an
    HTTP date); ``None`` when absent or unparsable. Never negative."""
    h = {str(k).lower(): str(v) for k, v in headers.items()}
    ms = h.get("retry-after-ms", "").strip()
    if ms:
        try:
            v = float(ms)
            if math.isfinite(v) and v >= 0:
                return v / 1000.0
        except ValueError:
            pass
    ra = h.get("retry-after", "").strip()
    if not ra:
        return None
    try:
        v = float(ra)
        return max(0.0, v) if math.isfinite(v) else None
    except ValueError:
        pass
    try:
        dt = email.utils.parsedate_to_datetime(ra)
    except (TypeError, ValueError, IndexError):
        return None
    if dt is None:
        return None
    if dt.tzinfo is None:
        import datetime as _dt

        dt = dt.replace(tzinfo=_dt.timezone.utc)
    return max(0.0, dt.timestamp() - (time.time() if now_ts is None else now_ts))
