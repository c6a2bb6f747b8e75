"""Keys that arrive together are a paste: the terminal driver of the workstation.

A terminal without bracketed paste (or a paste over some SSH clients) sends a pasted text as
if typed: Textual makes one ``Key`` event per character. 50 KB pasted into a reason field
took the app about 2.5 minutes at full CPU (50,000 key events, each re-rendering the field),
and a pasted CR or ESC acted as Enter or Esc: it submitted the dialog with half the text.

A person types one key per read of the terminal (a few over a slow link, or from tmux's
send-keys); a paste arrives in reads of up to 4 KB. So the driver looks at what one read gave
(:func:`chunk_events`): :data:`PASTE_FROM` printable keys or more, which nobody types between
two reads, is a paste; fewer are keys, each acting as typed, in a text field too (walk8: with
three keys as the rule, a reason typed ahead with a Backspace and an Enter became the text
'...\\x7f...' and submitted nothing). A paste shorter than that cannot be told from typing,
unless an ESC in it was read as text (an ESC the parser gave back, an ``alt+`` key, a
sequence read as nothing) beside two printable keys, which no typing makes: that read is a
paste too.
When a text field has the focus a paste becomes one ``Paste``
event of their text (Enter a line end, Tab a tab, ESC and other control characters shown
escaped, ``\\x1b``, as every pane shows them; :class:`BurstParser` keeps the ESCs Textual's
parser made ``alt+`` keys or ``^``, and the escape sequences it made an arrow key, a click or
nothing, ``ESC[31m``): the field takes it in one step, with its own limit
(:class:`qcstation.widgets.text_field.TextField`), and no pasted character acts as a key.
A bracketed paste is one ``Paste`` already; inside it too an ESC is text shown escaped
(Textual's parser dropped it and gave the keys after it as keys). Elsewhere the keys go on
one by one as before (keys typed ahead over a slow link still work), unless they are a paste:
then they are dropped with a
notice (:class:`IgnoredPaste`, counting the characters pasted, not the keys), so a paste onto
the review screen does not accept, reject and skip items.

A paste comes in several reads, and not only of 4 KB: from tmux, 4,097 bytes came as reads
of 4,095 and 2 bytes (the tail ' \r', whose CR acted as Enter and submitted the reason), 50
KB as 4,095, 3,586, 1,538, ... bytes within 25 ms. So a read of :data:`SPLIT_READ_FROM`
characters or more that ended in a paste hands the paste on to the next read, whose first
keys belong to it however few they are (:class:`ReadChunker`), when that read was already
waiting once the paste was posted or came within :data:`PASTE_GAP_S` after (the writer was
held up by the full terminal buffer). Nobody types 1,000 characters, then a key that fast;
a short burst (keys typed ahead over a slow link) hands nothing on, so the Enter typed after
it still acts. The keys the parser held back from a paste (an ESC at its end, given out at
its timeout) are the paste's too.

A pasted ``ESC [200~`` (the start of a bracketed paste, as text in a paste that was not
bracketed) put Textual's parser into a bracketed paste that only a ``ESC [201~`` ends: every
key typed after it was kept as paste text, and the app took no key but Esc until then. A
bracketed paste comes whole, so a paste still open :data:`PASTE_STALL_S` after the last read
is ended there (:func:`end_stalled_paste`): what it held is one ``Paste``, and keys act again.
A key typed before that (an Enter pressed right after such a paste) went into the paste's text:
a read that comes :data:`PASTE_GAP_S` or more after the last one, when no input was waiting
then, is typed after the paste, which is ended before it (:func:`end_paste_before_read`); the
reads of one paste come back to back.

Textual's parser reads a character at a time (a generator step, a ``Key`` made and logged):
50 KB pasted without bracketed paste took it 2.5 to 6.5 s before the first key of it was
posted, the app frozen meanwhile. :meth:`BurstParser.feed_runs` takes a run of characters with
no ESC in one step wherever the parser is at rest (between keys, or inside a bracketed paste):
a :class:`KeyRun` of the keys those characters make (each character's keys found once and
kept), which :func:`chunk_events` turns into the same ``Paste`` or keys as the ``Key`` events
one by one would have made; an ESC and what follows it go through Textual's parser as before.
The two routes give the same messages (``tests/app/test_paste.py`` compares them on many
inputs, split into reads anywhere, UTF-8 split between reads included).

Keys typed ahead in one read are posted in order, each after the one before was handled
(:func:`in_order`, :class:`KeyHandled`): Textual hands a key to the focused widget at once
but checks the bindings (an Input's Backspace, Enter, Tab) only once the key has bubbled
back to the app, so 'one', Backspace, 'n' posted together read 'onn' less one: the letters
typed after a Backspace went in before it.

Only the Linux (and macOS) terminal driver reads in chunks; :class:`ChunkingLinuxDriver` is
Textual's ``LinuxDriver`` with its input loop (``run_input_thread``, Textual 8.2.8, pinned)
handing each read's events to :func:`chunk_events`.
"""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder
from collections.abc import Callable, Iterable, Iterator
from time import monotonic
from typing import Union

from textual import events
from textual._parser import Read1
from textual._xterm_parser import XTermParser
from textual.keys import Keys
from textual.message import Message

from qcstation.common.safe import printable

__all__ = ["chunk_events", "GOES_ON_ATTR", "burst_text", "BurstParser", "KeyRun", "PASTE_FROM",
           "KeyHandled", "in_order", "KEY_WAIT_S",
           "IgnoredPaste", "ReadChunker", "PASTE_GAP_S", "SPLIT_READ_FROM", "text_has_focus",
           "PASTE_STALL_S", "end_stalled_paste", "end_paste_before_read"]

#: a read with this many printable keys is a paste (a ``Paste`` into the focused text field,
#: else dropped with a notice); fewer are keys
PASTE_FROM = 16
#: the longest the driver waits (seconds) for a key typed ahead to be handled before it posts
#: the next one (a safety net: the key's widget may go away before the answer comes)
KEY_WAIT_S = 1.0
#: a read this soon (seconds) after a long paste was posted goes on with that paste
PASTE_GAP_S = 0.1
#: a paste read this long (characters) may go on in the next read
SPLIT_READ_FROM = 1024
#: a bracketed paste still open this long (seconds) after the last read is ended there
PASTE_STALL_S = 0.5
#: what ends a bracketed paste (Textual's ``BRACKETED_PASTE_END``)
_PASTE_END = "\x1b[201~"

_KEY_TEXT = {"enter": "\n", "tab": "\t"}


class IgnoredPaste(Message):
    """A paste arrived while no text field had the focus; its keys were dropped.
    ``characters``: how many characters it held (a line end one, an escape sequence its
    length), as the user counts what they pasted."""

    def __init__(self, characters: int) -> None:
        super().__init__()
        self.characters = characters


class KeyHandled(Message, bubble=True):
    """Posted after a key typed ahead in one read (:func:`in_order`): the app sends it to
    where it sent the key (the focused widget, else the screen); it bubbles back to the app
    behind the key, so when it arrives there the key has been handled, bindings included,
    and ``done`` is set: the driver then posts the next key."""

    def __init__(self) -> None:
        super().__init__()
        self.done = threading.Event()
        self.sent_on = False


def in_order(messages: Iterable[Message]) -> list[tuple[Message, KeyHandled | None]]:
    """Each message to post for one read, with the :class:`KeyHandled` to post after it and
    wait for when it is a key with another key after it in the read (keys typed ahead)."""
    messages = list(messages)
    keys = [at for at, m in enumerate(messages) if isinstance(m, events.Key)]
    waits = set(keys[:-1])
    return [(m, KeyHandled() if at in waits else None) for at, m in enumerate(messages)]


#: the key :class:`BurstParser` makes of an ESC inside keys it reissues (Textual: a '^')
ESC_IN_TEXT = "ctrl+left_square_bracket"
#: the key :class:`BurstParser` makes of an escape sequence Textual's parser reads as nothing
#: (a colour code, ``ESC[31m``: a mouse code it cannot decode); a paste's text, else dropped
UNREAD_SEQUENCE = "unread_sequence"
#: the attribute of a ``Paste`` made of keys that is True when it goes on with the paste of
#: the read before (a part of one paste: a field's cut notice counts the whole paste)
GOES_ON_ATTR = "qc_goes_on"
#: the attribute holding the sequence a key or a mouse event was read from (``ESC[A``)
SEQUENCE_ATTR = "qc_sequence"

_BRACKETED_START = "\x1b[200~"


def _sequence_of(message: object) -> str | None:
    sequence = getattr(message, SEQUENCE_ATTR, None)
    return sequence if isinstance(sequence, str) else None


def _with_sequence(message: Message, sequence: str) -> Message:
    setattr(message, SEQUENCE_ATTR, sequence)
    return message


class KeyRun:
    """The keys a run of characters with no ESC makes, read in one step
    (:meth:`BurstParser.feed_runs`): each key's name and character (as the ``Key`` events
    would have them), how many are printable, and the text :func:`burst_text` makes of them
    (before its escaping)."""

    __slots__ = ("pairs", "printable", "text")

    def __init__(self, pairs: list[tuple[str, str | None]], printable: int, text: str) -> None:
        self.pairs = pairs
        self.printable = printable
        self.text = text

    def keys(self) -> list[events.Key]:
        """The run as the ``Key`` events Textual's parser makes of it, one by one."""
        return [events.Key(key, character) for key, character in self.pairs]


#: what one character makes: its keys (name, character), how many printable, its text
_Made = tuple[tuple[tuple[str, Union[str, None]], ...], int, str]


class BurstParser(XTermParser):
    """Textual's input parser (8.2.8, pinned), except that no ESC of a paste is lost or acts:

    - an ESC in a run of keys it could not read as one sequence stays an ESC: a pasted ESC +
      letter was an ``alt+`` key of the letter alone, an ESC the parser reissued as a key was
      a ``^`` (Textual's stand-in), and an ESC before a key whose name is longer than one
      character (``[`` of an unknown CSI) was lost. Here every key after such an ESC is an
      ``alt+`` key with its character, and the reissued ESC is :data:`ESC_IN_TEXT` with the
      character ESC. A real Esc (sent whole, not reissued) is unchanged;
    - a key or a mouse event read from an escape sequence keeps the sequence
      (:data:`SEQUENCE_ATTR`), and a sequence the parser read as nothing (``ESC[31m``) is a
      key :data:`UNREAD_SEQUENCE`: in a paste burst they are its text (:func:`burst_text`),
      not an arrow key, a click or nothing;
    - inside a bracketed paste, an ESC that does not end the paste reaches the parser as
      the text ``\\x1b``: Textual's parser took the keys after it out of the paste (to give
      them as keys after it) and dropped the ESC; an ESC right before the paste's end was the
      Esc key. Both :meth:`feed` and :meth:`feed_runs` see each read so, once."""

    def __init__(self, debug: bool = False) -> None:
        super().__init__(debug)
        self._in_bracketed = False
        self._seen = ""     # outside a paste: the end of what was read (a start marker cut)
        self._held = ""     # inside a paste: an ESC at the end of a read (its end marker cut)

    def feed(self, data: str) -> Iterable[Message]:
        text = self._bracketed_escs_shown(data)
        if not data and text:   # the end of input gives back what was held, then ends
            return [*super().feed(text), *super().feed("")]
        if data and not text:
            return []       # all held back (an empty feed is the end of input)
        return super().feed(text)

    def _bracketed_escs_shown(self, data: str) -> str:
        """``data`` with every ESC inside a bracketed paste that does not start its end
        marker written ``\\x1b``. An ESC that ends a read inside a paste may start the end
        marker: it is held back until the next read (the end of input gives it back)."""
        text, self._held = self._held + data, ""
        out: list[str] = []
        at = 0
        while at < len(text):
            if not self._in_bracketed:
                seen = self._seen + text[at:]
                start = seen.find(_BRACKETED_START)
                if start < 0:
                    out.append(text[at:])
                    self._seen = seen[-(len(_BRACKETED_START) - 1):]
                    break
                after = at + start + len(_BRACKETED_START) - len(self._seen)
                out.append(text[at:after])
                at, self._seen, self._in_bracketed = after, "", True
                continue
            esc = text.find("\x1b", at)
            if esc < 0:
                out.append(text[at:])
                break
            out.append(text[at:esc])
            if text.startswith(_PASTE_END, esc):
                out.append(_PASTE_END)
                at = esc + len(_PASTE_END)
                self._in_bracketed = False
            elif data and _PASTE_END.startswith(text[esc:]):
                self._held = text[esc:]     # the end marker may go on in the next read
                break
            else:
                out.append(printable("\x1b"))
                at = esc + 1
        return "".join(out)

    def parse_mouse_code(self, code: str) -> Message | None:
        event = super().parse_mouse_code(code)
        if event is None:               # ESC[31m: a colour, not a mouse
            return _with_sequence(events.Key(UNREAD_SEQUENCE, None), code)
        return _with_sequence(event, code)

    @property
    def holding(self) -> bool:
        """Does the parser hold keys back (after an ESC it could not yet read as a sequence,
        given out with what follows it at its timeout or in the next read)? Not inside a
        bracketed paste, which gives out nothing until its end anyway."""
        return not self._at_rest() and not self._eof and not self.in_bracketed_paste

    @property
    def in_bracketed_paste(self) -> bool:
        """Is the parser inside a bracketed paste (a ``ESC [200~`` came, no ``ESC [201~``
        yet)? Read from the state of Textual's parse loop (8.2.8, pinned)."""
        frame = getattr(self._gen, "gi_frame", None)
        return bool(frame is not None and frame.f_locals.get("bracketed_paste"))

    def _paste_buffer(self) -> list[str] | None:
        """The text of the bracketed paste the parse loop is in (its own list), or None."""
        frame = getattr(self._gen, "gi_frame", None)
        if frame is None or not frame.f_locals.get("bracketed_paste"):
            return None
        buffer = frame.f_locals.get("paste_buffer")
        return buffer if isinstance(buffer, list) else None

    def _at_rest(self) -> bool:
        """Is the parse loop waiting for the next character with nothing under way (not in
        an escape sequence, no token to give out)? Its read between keys has no timeout;
        inside a sequence it reads with the ESC delay."""
        awaiting = self._awaiting
        return (not self._eof and not self._tokens and type(awaiting) is Read1
                and awaiting.timeout is None)

    def _made(self, character: str) -> _Made:
        """The keys ``character`` makes at rest (kept: a paste repeats its characters)."""
        made = self._made_by.get(character)
        if made is None:
            keys = tuple((key.key, key.character)
                         for key in self._sequence_to_key_events(character)
                         if key.key != Keys.Ignore)
            made = (keys, sum(1 for _key, ch in keys if ch is not None and ch.isprintable()),
                    "".join(_KEY_TEXT.get(key) or ch or "" for key, ch in keys))
            self._made_by[character] = made
        return made

    def feed_runs(self, data: str) -> Iterator[Message | KeyRun]:
        """:meth:`feed`, with each run of characters without an ESC read at rest taken in
        one step: a :class:`KeyRun` of its keys (none when they are all ignored), or, in a
        bracketed paste, added to the paste's text as the loop adds each character. What is
        not at rest (an ESC and the sequence it starts) goes through :meth:`feed`."""
        if not data or self._eof:
            yield from self.feed(data)
            return
        if not hasattr(self, "_made_by"):
            self._made_by: dict[str, _Made] = {}
        data = self._bracketed_escs_shown(data)     # once per read, as :meth:`feed`
        feed1 = super().feed
        pos, size = 0, len(data)
        while pos < size:
            end = data.find("\x1b", pos)
            if end < 0:
                end = size
            if end == pos or not self._at_rest():
                yield from feed1(data[pos])
                pos += 1
                continue
            run, pos = data[pos:end], end
            self._timeout_time = None           # as reading each character at rest does
            buffer = self._paste_buffer()
            if buffer is not None:
                buffer.extend(run)
                continue
            made = self._made
            pairs: list[tuple[str, str | None]] = []
            printable = 0
            texts = []
            for character in run:
                keys, n, text = made(character)
                pairs.extend(keys)
                printable += n
                texts.append(text)
            if pairs:
                yield KeyRun(pairs, printable, "".join(texts))

    def _sequence_to_key_events(self, sequence: str,
                                alt: bool = False) -> Iterable[events.Key]:
        if sequence == "\x1b" and not alt:   # only reached for an ESC of a reissued run
            yield events.Key(ESC_IN_TEXT, "\x1b")
            return
        for key in super()._sequence_to_key_events(sequence, alt):
            if alt and not key.key.startswith("alt+"):
                key = events.Key(f"alt+{key.key}", key.character)
            if len(sequence) > 1 and sequence.startswith("\x1b"):
                _with_sequence(key, sequence)
            yield key


def burst_text(keys: Iterable[Message | KeyRun]) -> str:
    """The text a run of keys typed, with every control character but the line end and the
    tab shown escaped (:func:`qcstation.common.safe.printable`: ESC as ``\\x1b``), so that no
    pasted character acts as a key and none is lost: a key or a mouse event read from an
    escape sequence that sequence (``\\x1b[A``, ``\\x1b[31m``), Enter a line end, Tab a tab,
    an ``alt+`` key ESC and its character, a key with a character that character (ctrl+C
    ``\\x03``, Backspace ``\\x7f``); keys without one nothing."""
    return printable(_typed_text(keys))


def _typed_text(keys: Iterable[Message | KeyRun]) -> str:
    """The text of :func:`burst_text`, its control characters still raw (one each)."""
    parts = []
    for key in keys:
        if isinstance(key, KeyRun):
            parts.append(key.text)
            continue
        sequence = _sequence_of(key)
        if sequence is not None:
            parts.append(sequence)
        elif not isinstance(key, events.Key):
            continue
        elif key.key in _KEY_TEXT:
            parts.append(_KEY_TEXT[key.key])
        elif key.character:
            parts.append(("\x1b" if key.key.startswith("alt+") else "") + key.character)
    return "".join(parts)


def _printable_count(keys: list[Message | KeyRun]) -> int:
    return sum(key.printable if isinstance(key, KeyRun)
               else int(isinstance(key, events.Key) and key.is_printable) for key in keys)


def _is_paste(keys: list[Message | KeyRun]) -> bool:
    printable = _printable_count(keys)
    return printable >= PASTE_FROM or printable >= 2 and any(map(_escape_as_text, keys))


def _escape_as_text(key: Message | KeyRun) -> bool:
    """Is ``key`` an ESC read as text (see :class:`BurstParser`): an ESC the parser gave
    back, an ``alt+`` key, a sequence read as nothing? Beside typed letters in one read, no
    keyboard makes one; a pasted reason with an ESC in it does."""
    return isinstance(key, events.Key) and (key.key in (ESC_IN_TEXT, UNREAD_SEQUENCE)
                                            or key.key.startswith("alt+"))


def _as_keys(keys: list[Message | KeyRun]) -> list[Message]:
    """The messages of a run that is no paste, one by one: a sequence read as nothing
    (:data:`UNREAD_SEQUENCE`) stays nothing."""
    out: list[Message] = []
    for key in keys:
        if isinstance(key, KeyRun):
            out.extend(key.keys())
        elif not (isinstance(key, events.Key) and key.key == UNREAD_SEQUENCE):
            out.append(key)
    return out


def chunk_events(messages: Iterable[Message | KeyRun], text_focus: bool) -> list[Message]:
    """The messages to post for what one read of the terminal gave. Runs of keys that are
    a paste (:data:`PASTE_FROM` printable keys or more, or two and an ESC read as text)
    become one ``Paste`` when a text field has the focus, else one :class:`IgnoredPaste`; every other message is kept, in
    order."""
    return _chunk(messages, text_focus, continues=False)[0]


def _chunk(messages: Iterable[Message | KeyRun], text_focus: bool,
           continues: bool) -> tuple[list[Message], bool]:
    """:func:`chunk_events`, with the first run of keys taken as a paste whatever its size
    when ``continues`` (it goes on with the read before: :class:`ReadChunker`). Also says
    whether the read ended in a run taken as a paste."""
    out: list[Message] = []
    run: list[Message | KeyRun] = []
    first_run = True
    ended_in_paste = False

    def flush() -> None:
        nonlocal first_run, ended_in_paste
        if not run:
            return
        going_on = continues and first_run
        first_run = False
        ended_in_paste = False
        if going_on or _is_paste(run):
            if text_focus:
                paste = events.Paste(burst_text(run))
                setattr(paste, GOES_ON_ATTR, going_on)
                out.append(paste)
            else:
                out.append(IgnoredPaste(len(_typed_text(run))))
            run.clear()
            ended_in_paste = True
            return
        out.extend(_as_keys(run))
        run.clear()

    for message in messages:
        # a mouse event read right after keys is in their run: pasted, it is their text
        if isinstance(message, (events.Key, KeyRun)) or run and _sequence_of(message) is not None:
            run.append(message)
        else:
            flush()
            first_run = False
            ended_in_paste = False
            out.append(message)
    flush()
    return out, ended_in_paste


class ReadChunker:
    """:func:`chunk_events` over the reads of one terminal, in order: a long read that ended
    in a paste hands it on to the next read (see the module's docstring). The caller says
    how long each read was, when it came and when its messages were posted (seconds of a
    monotonic clock) and whether more input was waiting then, so the rule is tested
    without a clock."""

    def __init__(self) -> None:
        self._in_paste = False          # the last read ended in a paste
        self._long = False              # ... and was long enough to go on in the next
        self._posted_at: float | None = None
        self._more_waiting = False
        # a read whose keys wait for those the parser held back after them: its messages,
        # whether it went on with a paste, and its size
        self._waiting_read: tuple[list[Message | KeyRun], bool, int] | None = None

    @property
    def in_paste(self) -> bool:
        """Did the last read end in a paste (is more input waiting worth asking)?"""
        return self._in_paste

    def take(self, messages: Iterable[Message | KeyRun], text_focus: bool, at: float, *,
             size: int = 0, held_back: bool = False, holding: bool = False) -> list[Message]:
        """The messages to post for one read of ``size`` characters that came at ``at``;
        ``held_back`` for the keys the parser gives out at its timeout (held back from the
        last read). ``holding``: the parser holds keys back after these
        (:attr:`BurstParser.holding`, read once ``messages`` were read): then they wait
        for those, and are one read with them. 'bad reason\\rmore\\x1bx tab...' pasted in
        one read was posted as the keys 'bad reason', Enter (the reject submitted) and
        'more' ('e' opened the fix editor), the rest a paste ignored at the timeout: 15
        keys and no ESC are too few for a paste, the ESC after them came too late."""
        messages = list(messages)
        waiting_read = self._waiting_read
        if waiting_read is not None:
            if held_back and not messages and holding:
                return []
            self._waiting_read = None
            earlier, continues, earlier_size = waiting_read
            messages = earlier + messages
            size += earlier_size
        else:
            if held_back and not messages:
                return []
            posted_at = self._posted_at
            continues = self._in_paste and (held_back or self._long and (
                self._more_waiting or (posted_at is not None
                                       and at - posted_at <= PASTE_GAP_S)))
        self._posted_at, self._more_waiting = None, False
        if holding and messages:
            self._waiting_read = (messages, continues, size)
            self._in_paste = self._long = False
            return []
        self._long = size >= SPLIT_READ_FROM
        if not messages:
            # the parser holds this read back (an ESC that may start a sequence): its keys,
            # given out at the timeout, go on with the paste only if this read did
            self._in_paste = continues
            return []
        out, self._in_paste = _chunk(messages, text_focus, continues)
        return out

    def posted(self, at: float, more_waiting: bool) -> None:
        """The last read's messages were posted at ``at``; ``more_waiting``: input was
        already waiting to be read then."""
        self._posted_at, self._more_waiting = at, more_waiting


def end_stalled_paste(parser: BurstParser, last_read_at: float, now: float) -> list[Message]:
    """The ``Paste`` of a bracketed paste that no read has gone on with for
    :data:`PASTE_STALL_S` (its start was pasted text: see the module's docstring), ended
    now; nothing while the paste may still be coming or when none is open. Times are
    seconds of a monotonic clock, given by the caller (tested without a clock)."""
    if now - last_read_at < PASTE_STALL_S or not parser.in_bracketed_paste:
        return []
    return list(parser.feed(_PASTE_END))


def end_paste_before_read(parser: BurstParser, last_read_at: float, now: float,
                          waiting: bool) -> list[Message]:
    """The ``Paste`` of a bracketed paste still open when a read comes that is typed after
    it: :data:`PASTE_GAP_S` or more after the last read, with no input waiting once that
    read was taken (``waiting``); nothing when none is open or the read goes on with it
    (the module's docstring). Times are seconds of a monotonic clock, given by the caller."""
    if waiting or now - last_read_at < PASTE_GAP_S or not parser.in_bracketed_paste:
        return []
    return list(parser.feed(_PASTE_END))


def text_has_focus(focused: object) -> bool:
    """Is ``focused`` a widget that takes typed text (an editable ``Input`` or ``TextArea``),
    or one that hands a paste to its text field (``TAKES_PASTE``: the reject dialog's reasons,
    where a letter typed starts the reason; a paste there was ignored)?"""
    from textual.widgets import Input, TextArea

    if getattr(focused, "TAKES_PASTE", False) is True:
        return True
    if isinstance(focused, TextArea):
        return not focused.read_only
    return isinstance(focused, Input) and not focused.disabled


def chunking_driver_class() -> type:
    """Textual's Linux driver reading keys in chunks (see the module's docstring)."""
    from textual._loop import loop_last
    from textual._parser import ParseError
    from textual.drivers.linux_driver import LinuxDriver

    class ChunkingLinuxDriver(LinuxDriver):
        def _text_focus(self) -> bool:
            # read across threads: a reference read, at worst one key late
            try:
                return text_has_focus(self._app.focused)
            except Exception:  # noqa: BLE001 - the app is starting or closing
                return False

        def run_input_thread(self) -> None:  # Textual 8.2.8's loop, each read's events chunked
            selector = selectors.SelectSelector()
            selector.register(self.fileno, selectors.EVENT_READ)
            fileno = self.fileno
            EVENT_READ = selectors.EVENT_READ
            parser = BurstParser(self._debug)
            feed = parser.feed_runs
            tick = parser.tick
            decode = getincrementaldecoder("utf-8")().decode
            read = os.read
            process: Callable[[Message], None] = self.process_message
            exit_event = self.exit_event

            def post(messages: Iterable[Message]) -> None:
                # keys typed ahead in one read: each after the one before was handled
                for message, handled in in_order(messages):
                    process(message)
                    if handled is not None and not exit_event.is_set():
                        process(handled)
                        handled.done.wait(KEY_WAIT_S)
            chunker = ReadChunker()
            last_read_at = monotonic()
            waiting = False         # input was waiting once the last read was taken

            def process_selector_events(selector_events: list[tuple[selectors.SelectorKey, int]],
                                        final: bool = False) -> None:
                nonlocal last_read_at, waiting
                for last, (_selector_key, mask) in loop_last(selector_events):
                    if mask & EVENT_READ:
                        unicode_data = decode(read(fileno, 1024 * 4), final=final and last)
                        read_at = monotonic()
                        if not unicode_data:
                            last_read_at = read_at
                            break
                        # a key typed after a bracketed paste left open is not its text
                        for event in end_paste_before_read(parser, last_read_at, read_at,
                                                           waiting):
                            process(event)
                        last_read_at = read_at
                        read_messages = list(feed(unicode_data))
                        post(chunker.take(read_messages, self._text_focus(), read_at,
                                          size=len(unicode_data), holding=parser.holding))
                        waiting = False
                        if chunker.in_paste or parser.in_bracketed_paste:
                            waiting = bool(selector.select(0))
                            if chunker.in_paste:
                                chunker.posted(monotonic(), waiting)
                given_out = list(tick())
                for event in chunker.take(given_out, self._text_focus(), monotonic(),
                                          held_back=True, holding=parser.holding):
                    process(event)
                for event in end_stalled_paste(parser, last_read_at, monotonic()):
                    process(event)

            try:
                while not self.exit_event.is_set():
                    process_selector_events(selector.select(0.1))
                selector.unregister(self.fileno)
                process_selector_events(selector.select(0.1), final=True)
            finally:
                selector.close()
                try:
                    for _event in parser.feed(""):
                        pass
                except (EOFError, ParseError):
                    pass

    return ChunkingLinuxDriver
