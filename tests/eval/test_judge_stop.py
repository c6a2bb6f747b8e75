"""Stopping the judges from outside (Ctrl+C cancels ``asyncio.run``'s task) while a judge
server hangs: no request goes on after the client closed (walk28a: ``eval score
--retry-judges`` printed 'unhandled exception during asyncio.run() shutdown ... Cannot send
a request, as the client has been closed' for each request)."""

from __future__ import annotations

import asyncio
import socket
import threading
from pathlib import Path

import pytest

from qcstation.common.config import ModelConfig
from qcstation.eval import judging
from qcstation.eval.judging import _ask


def test_cancelling_the_judges_ends_every_request_before_the_client_closes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Also: while no request ends, the progress is told again (the heartbeat), so a
    hanging judge server is no silent wait."""
    monkeypatch.setattr(judging, "HEARTBEAT_S", 0.0)
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    port = listener.getsockname()[1]
    accepted = threading.Event()
    held: list[socket.socket] = []

    def hang() -> None:            # a server that takes connections and never replies
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            held.append(conn)
            accepted.set()

    threading.Thread(target=hang, daemon=True).start()
    judge = ModelConfig(model="judge-x", base_url=f"http://127.0.0.1:{port}/v1",
                        api_key_env="QC_TEST_NO_SUCH_KEY", concurrency=2, retries=0,
                        timeout_s=3600.0)
    kept: list[tuple[int, object]] = []
    errors: list[dict[str, object]] = []
    told: list[tuple[str, int, int, int]] = []

    async def main() -> list[asyncio.Task[object]]:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: errors.append(ctx))
        scoring = asyncio.ensure_future(_ask(
            tmp_path / "j.db", judge, 3, lambda k: [{"role": "user", "content": f"q{k}"}],
            lambda k, answer: kept.append((k, answer)), use_cache=False,
            progress=lambda *figures: told.append(figures)))
        await asyncio.to_thread(accepted.wait)      # a request is in flight
        while len(told) < 3:                        # told at the start, then again
            await asyncio.sleep(0)
        scoring.cancel()
        try:
            await scoring
        except asyncio.CancelledError:
            pass
        return [t for t in asyncio.all_tasks() if t is not asyncio.current_task()
                and not t.done()]

    try:
        left = asyncio.run(main())
    finally:
        listener.close()
        for conn in held:
            conn.close()
    assert left == [], left           # before: the requests went on after the client closed
    assert errors == []
    assert kept == []                 # nothing answered, nothing kept as an answer
    assert set(told) == {("judge-x", 0, 3, 0)}


def test_the_cli_says_how_long_no_judge_reply_came(monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from qcstation.commands.eval import _shared

    clock = [100.0]
    monkeypatch.setattr(_shared.time, "monotonic", lambda: clock[0])
    show = _shared.judge_progress_printer()
    show("judge-x", 0, 10, 0)
    clock[0] += 42                                  # the heartbeat, nothing ended
    show("judge-x", 0, 10, 0)
    clock[0] += 5
    show("judge-x", 1, 10, 1)                       # one failed: the wait starts again
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "judge judge-x: 0 of 10 requests answered · Ctrl+C stops (nothing scored is lost)",
        "judge judge-x: 0 of 10 requests answered · no reply for 42 s · Ctrl+C stops "
        "(nothing scored is lost)",
        "judge judge-x: 1 of 10 requests answered, 1 failed · Ctrl+C stops (nothing scored "
        "is lost)"]


class _Terminal:
    """A stderr that says it is a terminal and keeps what is written to it."""

    def __init__(self) -> None:
        self.text = ""

    def isatty(self) -> bool:
        return True

    def write(self, s: str) -> int:
        self.text += s
        return len(s)

    def flush(self) -> None:
        pass


def test_on_a_terminal_the_judges_progress_is_one_line_rewritten_in_place(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: with the judges down, `eval score --retry-judges` printed a line every 10 s
    (the heartbeat), on a terminal too: they piled up. On a terminal the line is rewritten in
    place (\\r, erase line), fitted to the width, and ended by a newline only when the judge
    is done or the scoring stops (Ctrl+C); in a file, plain lines as before (the test above)."""
    from qcstation.commands.eval import _shared

    clock = [100.0]
    monkeypatch.setattr(_shared.time, "monotonic", lambda: clock[0])
    term = _Terminal()
    monkeypatch.setattr(_shared.sys, "stderr", term)
    show = _shared.JudgeLine(tty=True, width=80)
    show("judge-with-a-rather-long-name-x", 0, 10, 0)
    for _ in range(60):                             # ten minutes of heartbeats, nothing ends
        clock[0] += 10
        show("judge-with-a-rather-long-name-x", 0, 10, 0)
    assert "\n" not in term.text                    # one line, rewritten 61 times
    shown = term.text.split("\r\x1b[2K")
    assert shown[0] == "" and len(shown) == 62
    assert all(0 < len(line) < 80 for line in shown[1:]), [len(x) for x in shown]
    assert "no reply for 600 s" in shown[-1] and "Ctrl+C stops" in shown[-1], shown[-1]
    show("judge-with-a-rather-long-name-x", 4, 10, 4)
    show.end()                                      # Ctrl+C: the line is ended, once
    show.end()
    assert term.text.endswith("4 of 10 requests answered, 4 failed · Ctrl+C stops\n"), \
        term.text[-80:]
    term.text = ""
    show("j", 10, 10, 0)                            # the last request ends the line itself
    assert term.text == "\r\x1b[2Kjudge j: 10 of 10 requests answered\n"


def test_ctrl_c_in_eval_score_ends_the_judges_line_first(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Interrupted mid-line, the CLI's 'interrupted' message starts a line of its own."""
    import argparse

    from qcstation.commands.eval import _shared, score
    from qcstation.eval import scorers

    term = _Terminal()
    monkeypatch.setattr(_shared.sys, "stderr", term)

    def interrupted(*_a: object, judge_progress: object = None, **_kw: object) -> None:
        assert callable(judge_progress)
        judge_progress("judge-x", 0, 10, 0)
        raise KeyboardInterrupt

    monkeypatch.setattr(scorers, "score_run", interrupted)
    monkeypatch.setattr(score, "resolve", lambda _store, refs: [1])
    monkeypatch.setattr(score, "store_from_args", lambda _args: _Nothing())
    monkeypatch.setattr(score, "config", lambda _args: None)
    args = argparse.Namespace(run="1", only_missing=True, retry_judges=True, json=False,
                              db=str(tmp_path / "x.db"), config=None)
    with pytest.raises(KeyboardInterrupt):
        score.run(args)
    assert term.text.startswith("\r\x1b[2Kjudge judge-x: 0 of 10") and term.text.endswith("\n")



class _Nothing:
    """A store context that opens nothing (the run is resolved by the test)."""

    def __enter__(self) -> None:
        return None

    def __exit__(self, *_exc: object) -> None:
        return None
