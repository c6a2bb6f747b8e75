"""Before a model is asked anything: can it be asked at all?

:func:`model_preflight` says why a configured OpenAI-compatible model cannot be used, or
None. It refuses a key variable that is needed but unset (the model is OpenAI's own API,
or the configuration names ``api_key_env`` for it), and servers that do not answer:
``GET {base_url}/models`` on each server, within :data:`PREFLIGHT_TIMEOUT_S`; any HTTP
answer counts as reachable except 401/403 (the key is refused). ``eval run``/``eval
resume``, the workstation's runs and ``config --check`` use it, so a run is refused
before it starts instead of finishing at 0 % on failed requests. Stdlib only; the server's
words are cut and escaped, the key scrubbed.
"""

from __future__ import annotations

import http.client
import socket
import urllib.parse
from typing import Any

from qcstation.common.http_retry import PLACEHOLDER_KEY, excerpt, scrub_key
from qcstation.common.safe import one_line

#: seconds each server has to answer the check (at most the model's own timeout)
PREFLIGHT_TIMEOUT_S = 10.0


def key_problem(m: Any) -> str | None:
    """Why the model's key is missing when it is needed, or None."""
    if m.api_key() is not None:
        return None
    if getattr(m, "base_url", None) is None and not getattr(m, "base_urls", None):
        return (f"${m.api_key_env} is not set: the OpenAI API needs a key (export it, or configure "
                f"base_url for a local server)")
    if getattr(m, "key_named", False):
        return (f"${m.api_key_env} is not set, and [models.{m.name}] names it as the key's variable "
                f"(export it, or remove api_key_env if the server needs no key)")
    return None


def reach(url: str, key: str | None, timeout_s: float) -> str | None:
    """Why ``GET {url}/models`` did not get an HTTP answer the key may use, or None."""
    parts = urllib.parse.urlsplit(url.rstrip("/") + "/models")
    conn_cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
    conn = conn_cls(parts.hostname or "", parts.port, timeout=timeout_s)
    try:
        conn.request("GET", parts.path or "/", headers={
            "Authorization": f"Bearer {key or PLACEHOLDER_KEY}", "Accept-Encoding": "identity"})
        resp = conn.getresponse()
        status = resp.status
        head = resp.read(4096) if status in (401, 403) else b""
    except socket.timeout:
        return f"{url} did not answer within {timeout_s:g} s"
    except (OSError, http.client.HTTPException) as exc:
        return f"cannot reach {url}: {exc.__class__.__name__}: {exc}"
    finally:
        conn.close()
    if status in (401, 403):
        said = one_line(excerpt(scrub_key(head.decode("utf-8", "replace"), key), 300), 160)
        return f"{url} refused the key (HTTP {status}): {said}"
    return None


def model_preflight(m: Any, *, timeout_s: float | None = None) -> str | None:
    """Why model ``m`` (a ModelConfig) cannot be used now, or None. With several servers,
    one that answers is enough (the others are named in no error: requests avoid them)."""
    why = key_problem(m)
    if why is not None:
        return why
    t = min(PREFLIGHT_TIMEOUT_S, float(m.timeout_s)) if timeout_s is None else timeout_s
    key = m.api_key()
    problems = []
    for url in m.endpoints:
        p = reach(url, key, t)
        if p is None:
            return None
        problems.append(p)
    return one_line(scrub_key("; ".join(problems), key), 600)
