"""The one reader of YAML and JSON input: event, players, published-results,
FIDE-update and reform files.

Every failure is an :class:`~uschess.errors.InputError` of one line naming
the file and, where there is one, the position.  Beyond what the parsers
check, the data must be what a person could have written on purpose:

* a file no larger than the caller's limit (no real file comes near it);
* no control character (other than tab and line ends) in the text or,
  escaped, in a value: ``control character U+0007 at line L column C`` (or
  ``at KEY PATH`` for an escaped one), the same words for YAML and JSON;
* no lone surrogate (``"\\ud83d"``): text is Unicode characters;
* no key given twice in one mapping (YAML and JSON alike: the parsers
  would keep the last one silently);
* YAML aliases (``*name``) that together stand for at most
  :data:`~uschess.io.refusals.ALIAS_BUDGET` nodes more than the document
  holds, and never for a node that contains itself (an "alias bomb" of a
  kilobyte otherwise expands to gigabytes in whatever walks the data);
* numbers that are finite and, for integers, of at most
  :data:`~uschess.io.refusals.MAX_INTEGER_DIGITS` digits (no value of these
  files needs more; Python refuses to convert integers of over 4,300 digits
  at all);
* mapping keys that are text or integers, and nesting at most
  :data:`MAX_DEPTH` deep.

YAML is read with the safe loader only (no Python objects), by
:mod:`uschess.io.yamlload`, imported only when YAML is read.
"""

from __future__ import annotations

import datetime as _dt
import errno
import json
import math
import os
import re
import stat
import sys
from array import array
from itertools import accumulate
from pathlib import Path
from typing import Any, Optional

from uschess import collector
from uschess.errors import InputError
from uschess.io.refusals import MAX_INTEGER_DIGITS, Refused as _Refused, reason as _reason

#: The largest YAML or JSON file read (event, players, published-results and
#: FIDE-update files): the largest real event, 3,000 players, is 0.7 MB of
#: YAML; 4 MB keeps the slowest input (YAML) within seconds.
MAX_DATA_BYTES = 4 * 1024 * 1024
#: The deepest nesting of lists and mappings (an event file is six deep).
MAX_DEPTH = 32
#: Characters refused in text: C0 controls but tab, LF and CR; DEL; C1.
_CONTROL_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
_SURROGATE_RE = re.compile("[\ud800-\udfff]")
#: Either of the two, found in one scan of the raw text.
_REFUSED_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
#: The ASCII characters a text may hold: an ASCII text (most files) is
#: checked by deleting these from its bytes, in C, and finding nothing left.
_ALLOWED_ASCII = bytes(c for c in range(128) if c in (9, 10, 13) or 32 <= c < 127)
#: A JSON text's nesting, in C: the text's UTF-8 bytes without every byte but
#: brackets and quotes (the bytes of a non-ASCII character are never ASCII),
#: then without its strings (escape-free: the text holds no backslash), are
#: its brackets.
_NOT_BRACKETS_OR_QUOTES = bytes(c for c in range(256) if chr(c) not in '[]{}"')
#: braces made brackets: only the nesting counts
_BRACES_AS_BRACKETS = bytes.maketrans(b"{}", b"[]")
_JSON_PLAIN_STRING_RE = re.compile(rb'"[^"]*"')


def refuse_unknown(raw, allowed: set, what: str = "", *, notes: Optional[dict] = None) -> None:
    """Refuse, in one line, the keys of the mapping ``raw`` that ``allowed``
    lacks: a key misspelt (``half-k``, ``system``) would otherwise be left
    unread and its value silently go without effect.  The line names the
    keys, what each was likely meant as (its note in ``notes``, else the
    allowed key nearest to it, if one is near) and the keys allowed;
    ``what`` (the record's name) starts it."""
    if allowed.issuperset(raw):  # (a set: the usual case costs one C call)
        return
    import difflib  # noqa: PLC0415 - only on this error's path

    unknown = sorted(str(k) for k in raw if k not in allowed)
    said = []
    for key in unknown:
        near = difflib.get_close_matches(key, sorted(allowed), n=1)
        note = (notes or {}).get(key) or (f"'{key}' may be '{near[0]}'" if near else None)
        said += [note] if note else []
    said.append(f"allowed: {', '.join(sorted(allowed))}")
    text = f"unknown field(s) {unknown} ({'; '.join(said)})"
    raise InputError(f"{what}: {text}" if what else text)


def kind_of(value: Any) -> str:
    """What a value read from a data file is, in the words of the file's
    language rather than Python's (messages say "must be a mapping, not
    empty", never "not NoneType")."""
    if value is None:
        return "empty (null)"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, (int, float)):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return "text"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, _dt.date):
        return "a date"
    if isinstance(value, (set, frozenset)):
        return "a set"
    if isinstance(value, bytes):
        return "binary data"
    return f"a {type(value).__name__}"


def control_message(char: str, where: str) -> str:
    """The one wording of a control character, wherever it is found."""
    return f"control character U+{ord(char):04X} {where}"


def _position(text: str, i: int) -> str:
    line = text.count("\n", 0, i) + 1
    col = i - (text.rfind("\n", 0, i) + 1) + 1
    return f"at line {line} column {col}"


def find_control(text: str) -> Optional[tuple[str, str]]:
    """(character, "at line L column C") of the first control character
    in ``text``, or None."""
    found = _CONTROL_RE.search(text)
    return (found.group(), _position(text, found.start())) if found else None


def check_field(text: str, what: str) -> None:
    """Refuse a control character or lone surrogate in one field's text
    (a DBF cell, a name), saying the field and the column in it."""
    if _REFUSED_RE.search(text) is None:
        return
    found = _CONTROL_RE.search(text) or _SURROGATE_RE.search(text)
    if found:
        ch = found.group()
        where = f"in {what} at column {found.start() + 1}"
        raise InputError(control_message(ch, where) if _CONTROL_RE.match(ch)
                         else f"lone surrogate U+{ord(ch):04X} {where}")


def check_text(text: str, source=None) -> None:
    """Refuse control characters and lone surrogates in raw text (a control
    character is named before a surrogate that comes earlier)."""
    if text.isascii():  # one pass over its bytes, in C
        if not text.encode("ascii").translate(None, _ALLOWED_ASCII):
            return
    elif _REFUSED_RE.search(text) is None:  # one scan of the text, in C
        return
    found = find_control(text)
    if found:
        raise InputError(control_message(*found), file=source)
    found = _SURROGATE_RE.search(text)
    if found:
        raise InputError(f"lone surrogate U+{ord(found.group()):04X} "
                         f"{_position(text, found.start())}", file=source)


def open_regular(path):
    """``path`` opened for reading in binary, refusing anything but a
    regular file with an :class:`InputError` naming it.  The file is opened
    without waiting (``O_NONBLOCK``, which does not change how a regular
    file reads), so that a FIFO with no writer is refused at once instead of
    blocking the command; a pipe, a device or a socket is refused too (a
    rating input is a file that can be read again); a directory raises
    ``IsADirectoryError`` as ``open`` does.  ``OSError`` of the open itself
    is the caller's to word."""
    fd, _ = _open_regular_fd(path)
    try:
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _open_regular_fd(path) -> tuple[int, os.stat_result]:
    """The descriptor of ``path`` opened as :func:`open_regular` opens it,
    and its ``fstat``."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        st = os.fstat(fd)
        mode = st.st_mode
        if stat.S_ISDIR(mode):  # as open() says it: the callers word it
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            kind = ("a FIFO (named pipe), " if stat.S_ISFIFO(mode) else
                    "a device, " if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else
                    "a socket, " if stat.S_ISSOCK(mode) else "")
            raise InputError(f"is {kind}not a regular file: pass the file itself "
                             "(or - to read standard input)", file=Path(path))
        return fd, st
    except BaseException:
        os.close(fd)
        raise


def read_limited(path, limit: int, what: str) -> bytes:
    """The bytes of ``path``, refusing a file larger than ``limit`` bytes
    (``what`` it is, with the limit, in the message).  Read through the
    descriptor, without a buffered file object (a replay reads thousands).
    ``path`` is made a Path only to be named in a message."""
    try:
        fd, st = _open_regular_fd(path)
        try:
            size = st.st_size
            if size > limit:
                raise InputError(f"{what} is {size:,} bytes; files over {limit:,} bytes are "
                                 "refused (no real one comes near)", file=Path(path))
            # as many bytes as the file holds (a read of the limit would
            # take a buffer of the limit's size every time), and one more:
            # a file that grew since is read on, up to the limit
            data = _read_fd(fd, size + 1)
            if len(data) > size:
                data += _read_fd(fd, limit + 1 - len(data))
        finally:
            os.close(fd)
    except FileNotFoundError:
        raise InputError("no such file", file=Path(path))
    except IsADirectoryError:
        raise InputError(f"is a directory, not a {what}", file=Path(path))
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=Path(path))
    if len(data) > limit:
        raise InputError(f"{what} is over {limit:,} bytes: refused (no real one comes near)",
                         file=Path(path))
    return data


def _read_fd(fd: int, n: int) -> bytes:
    """Up to ``n`` bytes from ``fd``: fewer only at the end of the file (a
    read may return less than asked, as one interrupted by a signal can)."""
    data = os.read(fd, n)
    if 0 < len(data) < n:
        parts = [data]
        got = len(data)
        while got < n:
            more = os.read(fd, n - got)
            if not more:
                break
            parts.append(more)
            got += len(more)
        data = b"".join(parts)
    return data


def read_limited_text(path, limit: int, what: str) -> str:
    """The UTF-8 text of ``path`` (a byte-order mark is dropped), refusing
    a file larger than ``limit`` bytes with the limit in the message."""
    data = read_limited(path, limit, what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return decode_utf8(data, Path(path))  # which says where


def read_page_text(path, limit: int, what: str) -> str:
    """The text of a page saved from a browser or a program: UTF-8 (a
    byte-order mark dropped), else Latin-1, as old pages were written."""
    raw = read_limited(path, limit, what)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def decode_utf8(data: bytes, source=None) -> str:
    try:
        return bytes(data).decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise InputError(f"not UTF-8 text (byte {err.start})", file=source)


def _is_yaml_error(err: Exception) -> bool:
    """Whether ``err`` is PyYAML's (which only YAML text, read after PyYAML
    is imported, can raise)."""
    yaml = sys.modules.get("yaml")
    return yaml is not None and isinstance(err, yaml.YAMLError)


class _DuplicateKey(Exception):
    def __init__(self, key, at=None):
        super().__init__(key)
        self.key = key
        self.at = at


def _json_pairs(pairs):
    out = dict(pairs)
    if len(out) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return out


def _json_too_deep(text: str) -> bool:
    """Whether an escape-free JSON ``text``, read without error, nests more
    than MAX_DEPTH brackets anywhere; only then are its values walked to
    find where.  Its strings removed, the brackets left are balanced, and
    each removal of every empty pair ``[]`` (in C) takes one level off the
    deepest nesting: the text nests more than MAX_DEPTH deep if brackets
    are left after MAX_DEPTH removals."""
    if len(text) <= 2 * MAX_DEPTH + 1:  # too short to hold MAX_DEPTH + 1 pairs
        return False
    return bool(_left_past_depth(_bracket_marks(text)))


def _bracket_marks(text: str) -> bytes:
    """The brackets of an escape-free ``text`` outside its double-quoted
    strings, braces written as brackets (only the nesting counts)."""
    marks = text.encode("utf-8", "surrogatepass").translate(_BRACES_AS_BRACKETS,
                                                            _NOT_BRACKETS_OR_QUOTES)
    if b'"' in marks:  # the strings' brackets go with them; empty strings go first (and
        # two strings with nothing but text between them become one: what is between
        # is no bracket)
        marks = _JSON_PLAIN_STRING_RE.sub(b"", marks.replace(b'""', b""))
    return marks


def _left_past_depth(marks: bytes) -> bytes:
    """``marks`` with MAX_DEPTH levels of innermost pairs taken away (each
    pass in C): empty when balanced brackets nest at most MAX_DEPTH deep."""
    for _ in range(MAX_DEPTH):
        if not marks:
            break
        marks = marks.replace(b"[]", b"")
    return marks


def _duplicate_position(text: str) -> Optional[str]:
    """Where the first object with a key given twice begins: JSON read
    again with the Python scanner, which knows positions (only after the
    fast reader found a duplicate)."""
    from json import decoder as _decoder, scanner as _scanner  # noqa: PLC0415

    def parse_object(s_and_end, strict, scan_once, object_hook, object_pairs_hook,
                     memo=None, *rest):
        s, start = s_and_end
        pairs, end = _decoder.JSONObject(s_and_end, strict, scan_once, None, list, memo)
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key, _position(s, start - 1))
            seen.add(key)
        return dict(pairs), end

    reader = json.JSONDecoder(parse_constant=_json_constant)
    reader.parse_object = parse_object
    reader.scan_once = _scanner.py_make_scanner(reader)
    try:
        reader.decode(text)
    except _DuplicateKey as dup:
        return dup.at
    except Exception:  # noqa: BLE001 - the fast reader's verdict stands
        return None
    return None


def _json_int(text: str) -> int:
    digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise InputError(f"a number of {digits} digits (no value needs more than "
                         f"{MAX_INTEGER_DIGITS})")
    return int(text)


class _NotFinite(Exception):
    """A JSON number too large for a float (its path is found by a walk)."""


def _json_float(text: str) -> float:
    value = float(text)
    if value - value != 0.0:  # inf (NaN is refused as a constant)
        raise _NotFinite(text)
    return value


def _json_constant(name: str):
    raise InputError(f"{name} is not a number these files accept (finite numbers only)")


#: The checked reader's JSON decoders, built once (``json.loads`` with hooks
#: builds a decoder and its scanner for every text): the one that reads
#: every text, and the one that reads a text again when a number is too
#: large for a float (as ``inf``, found by the walk of the values).
_JSON_DECODERS: tuple = ()


def use_json_int(parse_int) -> None:
    """Read JSON integers through ``parse_int`` (the checks of
    :func:`_json_int`: the reader's compiled kernel gives its own,
    :mod:`uschess.io.eventfile`)."""
    global _JSON_DECODERS
    _JSON_DECODERS = (
        json.JSONDecoder(object_pairs_hook=_json_pairs, parse_int=parse_int,
                         parse_float=_json_float, parse_constant=_json_constant),
        json.JSONDecoder(object_pairs_hook=_json_pairs, parse_int=parse_int,
                         parse_constant=_json_constant))


use_json_int(_json_int)


def _json_loads(text: str, decoder: json.JSONDecoder) -> Any:
    """``json.loads(text)`` with ``decoder``'s hooks: a text that begins with
    a byte-order mark refused as ``json.loads`` refuses it."""
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    return decoder.decode(text)


#: Opening brackets as +1, closing as -1 (signed bytes).
_AS_STEPS = bytes.maketrans(b"[]", b"\x01\xff")
#: A YAML line's indentation and the "- " entries that open it.
_BLOCK_RE = re.compile(r"^( *)((?:- +)*)(?=[^ \n#])", re.MULTILINE)
_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


def check_nesting(text: str, *, json_format: bool, source=None) -> None:
    """Refuse a text nested more than :data:`MAX_DEPTH` deep before it is
    parsed, so that no parser recurses deeper than about twice that: its
    brackets and braces outside double-quoted strings (counted in C), and
    for YAML the blocks its indentation opens ("- " entries and deeper
    indents), each on its own.  Data nesting one kind in the other is
    checked once parsed (:func:`check_values`)."""
    if len(text) <= MAX_DEPTH:
        return
    bare = text
    if "\\" in bare:  # escaped backslashes, then escaped quotes: the quotes left delimit
        bare = bare.replace("\\\\", "").replace('\\"', "")
    marks = _bracket_marks(bare)
    pairs = _left_past_depth(marks)  # brackets left: deeper, or unbalanced (then counted)
    flow = max(accumulate(array("b", marks.translate(_AS_STEPS))), default=0) if pairs else 0
    if flow > MAX_DEPTH:
        raise InputError(f"nested over {MAX_DEPTH} deep {_deep_bracket(text)}", file=source)
    if not json_format:
        block = _block_depth(text, MAX_DEPTH)
        if block is not None:
            raise InputError(f"nested over {MAX_DEPTH} deep at line {block}", file=source)


def _deep_bracket(text: str) -> str:
    """``at line L column C`` of the first bracket past MAX_DEPTH levels."""
    depth = 0
    for match in _TOKEN_RE.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _position(text, match.start())
        elif token in "]}":
            depth -= 1
    return "in its brackets"


def _block_depth(text: str, most: int) -> Optional[int]:
    """The number of the first YAML line that opens more than ``most``
    blocks by indentation and "- " entries, or None.  Counted exactly only
    where the distinct indentations alone could exceed it."""
    found = _BLOCK_RE.findall(text)
    widths = {len(indent) for indent, _ in found}
    dashes = max((entries.count("-") for _, entries in found), default=0)
    if len(widths) + dashes <= most:
        return None
    open_at: list[int] = []  # the columns of the blocks open
    for match in _BLOCK_RE.finditer(text):
        column = len(match.group(1))
        while open_at and open_at[-1] > column:
            open_at.pop()
        if not open_at or open_at[-1] < column:
            open_at.append(column)
        for entry in re.finditer(r"- +", match.group(2)):
            open_at.append(column + entry.end())
        if len(open_at) > most:
            return text.count("\n", 0, match.start()) + 1
    return None


def parse_data(text: str, *, json_format: bool, source=None) -> Any:
    """The data of YAML or JSON ``text``, checked as the module says (the
    cycle collector paused: the parsers make trees, see uschess.collector)."""
    with collector.paused():
        return _parse_data(text, json_format, source)


def _parse_data(text: str, json_format: bool, source) -> Any:
    check_text(text, source)
    check_nesting(text, json_format=json_format, source=source)
    # Without a backslash there is no escape sequence: every string's
    # characters are the text's own, which check_text has just checked.
    escapes = "\\" in text
    kind = "JSON" if json_format else "YAML"
    try:
        if json_format:
            checked, again = _JSON_DECODERS
            try:
                data = _json_loads(text, checked)
            except _NotFinite:  # read again, to name where the number is
                data = _json_loads(text, again)
                escapes = True
        else:
            from uschess.io.yamlload import Loader

            loader = Loader(text)
            loader.may_alias = "&" in text
            try:
                data = loader.get_single_data()
            finally:
                loader.dispose()
    except InputError as err:
        raise err.located(file=source)
    except _DuplicateKey as dup:
        at = _duplicate_position(text)
        raise InputError(f"key {dup.key!r} given twice in "
                         + (f"the object {at}" if at else "one object"), file=source)
    except json.JSONDecodeError as err:
        raise InputError(f"malformed JSON at line {err.lineno} column {err.colno}: {err.msg}",
                         file=source)
    except _Refused as err:
        raise InputError(f"{err.message} at line {err.mark.line + 1} column "
                         f"{err.mark.column + 1}", file=source)
    except RecursionError:
        raise InputError(f"malformed {kind}: nested too deeply", file=source)
    except Exception as err:  # noqa: BLE001 - the parsers' own failures on bad input
        if _is_yaml_error(err):
            mark = getattr(err, "problem_mark", None)
            at = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
            problem = getattr(err, "problem", None) or "not YAML"
            raise InputError(f"malformed YAML{at}: {' '.join(str(problem).split())}",
                             file=source)
        # PyYAML builds dates, numbers and tagged values with bare
        # constructors that raise anything: ValueError (2024-02-30, a
        # 5000-digit integer), AttributeError (!!timestamp null), KeyError
        # (!!bool abc), OverflowError.  None of them is a bug here: the
        # text is malformed.
        raise InputError(f"malformed {kind}: {_reason(err)}", file=source)
    if json_format and not escapes:
        # JSON makes text keys and plain values only; numbers were checked
        # as they were converted and the strings with the text, and
        # check_nesting has refused brackets nested deeper than MAX_DEPTH
        # before the parse (the count of _json_too_deep, and JSON nests by
        # brackets alone): nothing is left to check.
        return data
    check_values(data, source, strings=escapes)
    return data


def check_values(data: Any, source=None, *, strings: bool = True) -> None:
    """Refuse escaped control characters and lone surrogates, numbers that
    are not finite or too long, odd keys and deep nesting, naming the path
    of the value (``sections[0].players[2].name``).  ``strings=False``
    leaves out the strings (read from a text already checked that holds no
    escape sequence)."""
    # (value, trail, depth): a value's trail is (its parent's trail, its key
    # or index), turned into a path only for a message
    stack: list = [(data, None, 0)]
    pop, push = stack.pop, stack.append
    while stack:
        value, trail, depth = pop()
        if depth > MAX_DEPTH:
            raise InputError(f"nested over {MAX_DEPTH} deep {_where(trail)}", file=source)
        kind = type(value)
        if kind is str:
            if strings and _REFUSED_RE.search(value) is not None:
                _check_string(value, _where(trail), source)
        elif kind is dict:
            depth += 1
            for key, item in value.items():
                if type(key) is not str and (isinstance(key, bool)
                                             or not isinstance(key, (str, int, _dt.date))):
                    raise InputError(f"key {key!r} {_where(trail)} is not text or a number",
                                     file=source)
                if strings and isinstance(key, str) and _REFUSED_RE.search(key) is not None:
                    _check_string(key, _where(trail), source)
                push((item, (trail, key, False), depth))
        elif kind is list:
            depth += 1
            for i, item in enumerate(value):
                push((item, (trail, i, True), depth))
        elif kind is bool or value is None:
            continue
        elif kind is int:
            if abs(value) >= 10 ** MAX_INTEGER_DIGITS:
                raise InputError(f"a number of {len(str(abs(value)))} digits {_where(trail)} (no "
                                 f"value needs more than {MAX_INTEGER_DIGITS})", file=source)
        elif kind is float:
            if not math.isfinite(value):
                raise InputError(f"{value!r} {_where(trail)} is not a finite number", file=source)
        elif isinstance(value, (_dt.date, bytes)):
            continue
        else:  # the safe loader makes nothing else; sets (!!set) and the like
            raise InputError(f"{kind_of(value)} {_where(trail)} is not data these files "
                             "hold", file=source)


def _where(trail) -> str:
    """``at PATH`` of a value's trail (``at the top level`` for none)."""
    steps = []
    while trail is not None:
        trail, key, index = trail
        steps.append((key, index))
    path = ""
    for key, index in reversed(steps):
        path = f"{path}[{key}]" if index else (f"{path}.{key}" if path else str(key))
    return f"at {path}" if path else "at the top level"


def _check_string(text: str, where: str, source) -> None:
    found = _CONTROL_RE.search(text)
    if found:
        raise InputError(control_message(found.group(), where), file=source)
    found = _SURROGATE_RE.search(text)
    if found:
        raise InputError(f"lone surrogate U+{ord(found.group()):04X} {where} (write the "
                         "character itself)", file=source)


def read_data_file(path, limit: int, what: str) -> Any:
    """The data of a YAML (``.yaml``/``.yml``/other) or JSON (``.json``)
    file of at most ``limit`` bytes."""
    path = Path(path)
    text = read_limited_text(path, limit, what)
    return parse_data(text, json_format=path.suffix.lower() == ".json", source=path)


def peek_top_level(data: bytes, keys: tuple[str, ...], *, json_format: bool) -> Optional[dict]:
    """The values of the top-level ``keys`` of a YAML or JSON mapping that
    are present, read by the plain parsers without the checks of
    :func:`parse_data` (None when the text is not such a mapping or does not
    read): a glance at a file, to order it before reading it in full.  Of a
    YAML file only the nodes of those keys are made into values (libyaml
    composes the rest, in C, and it is dropped); of a JSON file without
    escapes, only its beginning up to the last of the keys that its text
    names (:func:`_json_head`), so a text broken beyond them (but not cut
    short) reads as its beginning says (the checked reader refuses it when it
    reads the file)."""
    if data.startswith(b"\xef\xbb\xbf"):  # a byte-order mark, as decode_utf8 drops it
        data = data[3:]
    try:
        if json_format:
            if b"\\" not in data:  # no escape: a key is written as its own text
                head = _json_head(data.decode("utf-8"), keys)
                if head is not None:
                    return head
            whole = json.loads(data)
            return {k: whole[k] for k in keys if k in whole} if isinstance(whole, dict) else None
        import yaml

        from uschess.io.yamlload import BASE_LOADER

        loader = BASE_LOADER(data)
        try:
            root = loader.get_single_node()
            if not isinstance(root, yaml.MappingNode):
                return None
            out = {}
            for key_node, value_node in root.value:
                if isinstance(key_node, yaml.ScalarNode) and key_node.value in keys \
                        and key_node.tag == "tag:yaml.org,2002:str":
                    out[key_node.value] = loader.construct_object(value_node, deep=True)
            return out
        finally:
            loader.dispose()
    except Exception:  # noqa: BLE001 - the checked reader says what is wrong, when it reads
        return None


_JSON_SCAN = json.JSONDecoder().scan_once
_JSON_SPACE = json.decoder.WHITESPACE.match


def _json_head(text: str, keys: tuple[str, ...]) -> Optional[dict]:
    """The top-level ``keys`` of an escape-free JSON object, read from its
    beginning only as far as the last of them that the text names at all
    (an event file's ``event`` comes first, and no ``"kind"`` is in it: the
    sections are not read).  None when the text is not such an object
    (the caller then reads it whole)."""
    wanted = {k for k in keys if f'"{k}"' in text}
    end = len(text)
    while end and text[end - 1] in " \t\r\n":
        end -= 1
    if not wanted or text[end - 1:end] != "}":  # (a file cut short is read whole)
        return None
    i = _JSON_SPACE(text, 0).end()
    if text[i:i + 1] != "{":
        return None
    out: dict = {}
    i = _JSON_SPACE(text, i + 1).end()
    while wanted:
        if text[i:i + 1] != '"':
            return None
        key, i = json.decoder.scanstring(text, i + 1)
        i = _JSON_SPACE(text, i).end()
        if text[i:i + 1] != ":":
            return None
        value, i = _JSON_SCAN(text, _JSON_SPACE(text, i + 1).end())
        if key in wanted:
            out[key] = value
            wanted.discard(key)
        i = _JSON_SPACE(text, i).end()
        if text[i:i + 1] != ",":
            break
        i = _JSON_SPACE(text, i + 1).end()
    if wanted:  # named only inside a value, or the object ended: read it whole
        return None
    return out
