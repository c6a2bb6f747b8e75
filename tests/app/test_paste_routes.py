"""The driver's fast route (issue 28.3): runs of characters a terminal read holds are taken in
one step, and post what Textual's parser, a character at a time, posts for the same bytes
(qcstation/driver.py). The pastes themselves are those of tests/app/test_paste.py."""

from __future__ import annotations

from textual import events

from qcstation.driver import BurstParser, IgnoredPaste, ReadChunker
from tests.app.test_paste import BRACKETED, ESC_PASTE, ESC_SHOWN, PASTE, SEQUENCE_PASTE, SEQUENCE_SHOWN


def _shape(message: object) -> tuple[object, ...]:
    """What a posted message says: its kind and content (not its time or sender)."""
    if isinstance(message, events.Key):
        return ("key", message.key, message.character)
    if isinstance(message, events.Paste):
        return ("paste", message.text)
    if isinstance(message, IgnoredPaste):
        return ("ignored", message.characters)
    if isinstance(message, events.MouseEvent):
        return (type(message).__name__, message.x, message.y, message.button)
    return (type(message).__name__,)


def _route(reads: list[tuple[bytes, bool]], focus: bool, fast: bool) -> list[object]:
    """What the driver posts for ``reads`` (bytes as the terminal gave them, each read a
    paste's part or not, then maybe the parser's timeout), through one route: Textual's
    parser a character at a time, or the runs taken at once (as the driver reads)."""
    from codecs import getincrementaldecoder

    from qcstation.driver import end_stalled_paste

    parser, chunker = BurstParser(False), ReadChunker()
    decode = getincrementaldecoder("utf-8")().decode
    feed = parser.feed_runs if fast else parser.feed
    posted: list[object] = []
    at = 0.0
    for data, timeout in reads:
        at += 0.01
        text = decode(data)
        if text:        # a read that ends inside a character decodes to nothing yet (the
            # driver feeds nothing then: an empty feed is the end of input)
            posted += [_shape(m) for m in chunker.take(feed(text), focus, at, size=len(text))]
        posted.append(("bracketed", parser.in_bracketed_paste))
        if chunker.in_paste:
            chunker.posted(at, False)
        if timeout and parser._timeout_time is not None:
            parser._timeout_time = 0
            posted += [_shape(m) for m in chunker.take(parser.tick(), focus, at, held_back=True)]
    posted += [_shape(m) for m in end_stalled_paste(parser, at, at + 10)]
    return posted


#: pieces a paste or typing is made of: letters, line ends, controls, escape sequences
#: whole and cut, bracketed paste markers, mouse codes, characters of 2 to 4 UTF-8 bytes
_PIECES = ["a", "word ", "Z", " ", "\r", "\n", "\t", "\x03", "\x7f", "\x00", "\x01", "\x1b",
           "\x1b[A", "\x1b[31m", "\x1b[0m", "\x1bx", "\x1b[200~", "\x1b[201~", "\x1b[200",
           "[200~", "\x1b[<0;5;5M", "\x1b[1;5C", "\x1bOP", "é", "€", "😀", "\u202e", "~", "[",
           "\x1b\x1b", "\x1b[13;2u", "9"]


def test_runs_taken_at_once_post_what_the_keys_one_by_one_post() -> None:
    import random

    rng = random.Random(28)
    for case in range(200):
        text = "".join(rng.choice(_PIECES) for _ in range(rng.randint(1, 60)))
        if case % 5 == 0:
            text = "x" * rng.randint(900, 3000) + text      # a long paste, then the rest
        data = text.encode()
        cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(0, 6))))
        parts = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        reads = [(part, rng.random() < 0.3) for part in parts]
        for focus in (True, False):
            assert _route(reads, focus, fast=True) == _route(reads, focus, fast=False), \
                (case, text, cuts, focus)


def test_both_routes_agree_on_escape_sequences_pasted_and_escs_in_a_bracketed_paste() -> None:
    """The pastes of escape sequences and the bracketed pastes holding an ESC (above), cut
    into two reads at every place, the parser's timeout after each read or not: runs taken
    at once post what the keys one by one post, and, a bracketed paste cut anywhere or a
    paste whole, the text the cases above say, no key and no click."""
    cases = [(SEQUENCE_PASTE, SEQUENCE_SHOWN), (ESC_PASTE, ESC_SHOWN), *BRACKETED,
             ("\x1b[200~b \x1b[A\x1b[<0;5;5M\x1b\x1b[201~", "b \\x1b[A\\x1b[<0;5;5M\\x1b")]
    for sent, shown in cases:
        data = sent.encode()
        for cut in range(len(data) + 1):
            for timeout in (False, True):
                parts = [part for part in (data[:cut], data[cut:]) if part]
                reads = [(part, timeout) for part in parts]
                for focus in (True, False):
                    fast = _route(reads, focus, fast=True)
                    assert fast == _route(reads, focus, fast=False), (sent, cut, focus)
                    # a paste not bracketed is read whole, its last keys given out at
                    # the timeout (cut into a read of one or two keys, they are keys); a
                    # timeout in a bracketed paste's start marker ends it
                    bracketed = sent.startswith("\x1b[200~")
                    if focus and (not timeout if bracketed
                                  else timeout and cut in (0, len(data))):
                        text = "".join(str(m[1]) for m in fast
                                       if isinstance(m, tuple) and m[0] == "paste")
                        assert text == shown, (sent, cut, timeout, fast)
                        assert not any(m[0] in ("key", "MouseDown") for m in fast
                                       if isinstance(m, tuple)), (sent, cut, fast)


def test_a_50_kb_paste_is_read_in_a_few_steps_not_a_key_at_a_time() -> None:
    """50 KB pasted without bracketed paste: Textual's parser made 50,000 keys one by one
    (2.5 to 6.5 s in the driver, the app frozen meanwhile); read as runs, each read is a few
    runs between its ESCs, and posts the same one paste event of its text."""
    from qcstation.driver import KeyRun

    big = (PASTE * 6)[:50_000]
    parser = BurstParser(False)
    steps = [m for at in range(0, len(big), 4096) for m in parser.feed_runs(big[at:at + 4096])]
    assert sum(isinstance(m, KeyRun) for m in steps) <= 3 * (len(big) // 4096 + 1)
    assert not any(isinstance(m, events.Key) and m.is_printable for m in steps)
    assert sum(len(m.pairs) for m in steps if isinstance(m, KeyRun)) > 49_000
    assert _route([(big.encode(), True)], True, fast=True) == \
        _route([(big.encode(), True)], True, fast=False)
