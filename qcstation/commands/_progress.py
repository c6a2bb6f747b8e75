"""A progress bar on stderr for long commands (silent when stderr is not a terminal)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def progress_bar(enabled: bool = True) -> Iterator[Callable[[int, int, str], None]]:
    if not enabled or not sys.stderr.isatty():
        yield lambda done, total, message: None
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TaskID,
        TextColumn,
        TimeElapsedColumn,
    )

    progress = Progress(TextColumn("{task.description:<28}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), transient=True,
                        # the bar's own escape codes go to the real stream, not the SafeStream
                        console=Console(file=getattr(sys.stderr, "raw_stream", sys.stderr)))
    tasks: dict[str, TaskID] = {}

    def update(done: int, total: int, message: str) -> None:
        key = message.split(":", 1)[0]
        if key not in tasks:
            tasks[key] = progress.add_task(key, total=total)
        progress.update(tasks[key], completed=done, total=total, description=message)

    with progress:
        yield update
