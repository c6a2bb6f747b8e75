"""Where qcstation's own processes keep runtime files, so a killed run leaves nothing in
the system temp folder.

The verifier pool uses multiprocessing's ``forkserver``, which keeps its listening socket
in a ``pymp-*`` folder made with ``tempfile.mkdtemp()``; a run killed with ``kill -9``
never removes it. :func:`use_private_temp_dir_for_multiprocessing` points multiprocessing
at ``<runtime base>/<pid>`` instead, and every start removes the folders of runs that no
longer exist. The runtime base is ``$XDG_RUNTIME_DIR/qcstation`` (a per-user tmpfs,
emptied at logout), else ``$XDG_CACHE_HOME/qcstation/run`` (default ``~/.cache``). Unix
socket paths are short (about 100 bytes): a base too long for them falls back to the
system temp folder, and where that is too long as well (a deep ``$TMPDIR``), to ``/tmp``.
"""

from __future__ import annotations

import contextlib
import multiprocessing.process
import multiprocessing.util
import os
import shutil
import tempfile
from pathlib import Path

from qcstation.common.leases import pid_alive

#: the forkserver socket is ``<dir>/listener-xxxxxxxx``; AF_UNIX paths hold 107 bytes
_MAX_BASE_LEN = 80


def runtime_base() -> Path:
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and Path(runtime).is_dir():
        base = Path(runtime) / "qcstation"
    else:
        cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        base = Path(cache) / "qcstation" / "run"
    # (a long system temp folder too: "/tmp" itself, which every Unix has and is short)
    for fallback in (tempfile.gettempdir(), "/tmp"):
        if len(str(base)) <= _MAX_BASE_LEN:
            break
        base = Path(fallback) / f"qcstation-{os.getuid()}"
    return base


def clean_stale(base: Path) -> list[Path]:
    """Remove the runtime folders of processes that no longer run."""
    removed: list[Path] = []
    with contextlib.suppress(OSError):
        for entry in base.iterdir():
            if entry.name.isdigit() and int(entry.name) != os.getpid() and not pid_alive(int(entry.name)):
                shutil.rmtree(entry, ignore_errors=True)
                removed.append(entry)
    return removed


def private_temp_dir() -> Path | None:
    """``<runtime base>/<pid>`` (made 0700), after cleaning stale ones; None if it cannot
    be made (the caller then keeps the default)."""
    base = runtime_base()
    try:
        base.mkdir(parents=True, exist_ok=True, mode=0o700)
        clean_stale(base)
        mine = base / str(os.getpid())
        mine.mkdir(exist_ok=True, mode=0o700)
    except OSError:
        return None
    return mine


def use_private_temp_dir_for_multiprocessing() -> None:
    """Make multiprocessing keep its temporary folder in :func:`private_temp_dir` (once per
    process, before the first pool starts); removed at a normal exit, and by the next run
    after a kill."""
    config = getattr(multiprocessing.process.current_process(), "_config", None)
    if not isinstance(config, dict) or config.get("tempdir") is not None:
        return
    mine = private_temp_dir()
    if mine is None:
        return
    config["tempdir"] = str(mine)
    multiprocessing.util.Finalize(None, shutil.rmtree, args=(str(mine), True), exitpriority=-100)
