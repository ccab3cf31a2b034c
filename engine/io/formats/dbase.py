"""A small dBase III table reader and writer.

Enough of the format for the US Chess rating report: the 32-byte file header,
32-byte field descriptors ended by ``0x0D``, fixed-length records each led by
a deletion flag (``' '`` live, ``'*'`` deleted) and an optional ``0x1A`` end
marker.  Field types C (character), N and F (numeric), D (date ``YYYYMMDD``)
and L (logical) are converted; any other type is read only as text
(``raw=True``).

Everything declared in the header is checked against the bytes actually
present before anything is sliced, so a forged record count, header length,
record length or field width is refused with an
:class:`~uschess.errors.InputError` instead of allocating memory: a file is
never read past :data:`MAX_FILE_BYTES`, and the records the header promises
must fit in the bytes that follow it.  Text is decoded as ``cp1252`` by
default, with undecodable bytes replaced.
"""

from __future__ import annotations

import datetime as _dt
import math
import re
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional, Sequence

from uschess.errors import InputError
from uschess.io.files import atomic_write

#: Largest DBF file read at all (a rating report is a few hundred KB at most).
MAX_FILE_BYTES = 64 * 1024 * 1024
#: Version bytes of the dBase family (III, IV, V, FoxPro, Visual FoxPro).
VERSIONS = frozenset({0x02, 0x03, 0x04, 0x05, 0x30, 0x31, 0x32, 0x43, 0x63,
                      0x83, 0x8B, 0x8E, 0xCB, 0xE5, 0xF5, 0xFB})
#: Field types converted to Python values.
TYPED = frozenset("CNFDL")
#: Field types accepted in a header (the rest of the family's letters).
KNOWN_TYPES = frozenset("CNFDLMBGIYTO@+0PVW")

_HEADER = struct.Struct("<B3BIHH20x")
_DESCRIPTOR = struct.Struct("<11sc4xBB14x")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,10}$", re.ASCII)
_NUMBER = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)$", re.ASCII)
_FLOAT = re.compile(r"^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?$", re.ASCII)
_TRUE = frozenset(b"TtYy")
_FALSE = frozenset(b"FfNn")


@dataclass(frozen=True)
class DbfField:
    """A field descriptor: name (upper case), type letter, width, decimals."""

    name: str
    type: str
    length: int
    decimals: int = 0


class DbfRecord(dict):
    """One record: field name -> value, with its 1-based position in the file
    (``number``, deleted records counted) and its deletion flag."""

    __slots__ = ("number", "deleted")

    def __init__(self, values=(), *, number: int = 0, deleted: bool = False):
        super().__init__(values)
        self.number = number
        self.deleted = deleted


@dataclass
class DbfTable:
    """A whole table: descriptors in file order and the records read."""

    fields: list[DbfField]
    records: list[DbfRecord]
    version: int = 0x03
    last_update: Optional[_dt.date] = None
    source: Optional[str] = None

    def field(self, name: str) -> Optional[DbfField]:
        """The descriptor called ``name`` (case-insensitive), or None."""
        name = name.upper()
        for f in self.fields:
            if f.name == name:
                return f
        return None


# --------------------------------------------------------------------------
# Reading

def read_dbf(path, *, encoding: str = "cp1252", raw: bool = False,
             include_deleted: bool = False) -> DbfTable:
    """Read a ``.dbf`` file; see :func:`parse_dbf`."""
    path = Path(path)
    data = read_bounded(path, MAX_FILE_BYTES, "DBF file")
    return parse_dbf(data, source=str(path), encoding=encoding, raw=raw,
                     include_deleted=include_deleted)


def read_bounded(path: Path, limit: int, what: str) -> bytes:
    """The bytes of ``path``, refusing a file larger than ``limit``."""
    try:
        size = path.stat().st_size
        if size > limit:
            raise InputError(f"{what} is {size:,} bytes; files over {limit:,} bytes are "
                             "refused (no real one comes near)", file=path)
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except FileNotFoundError:
        raise InputError("no such file", file=path)
    except IsADirectoryError:
        raise InputError(f"is a directory, not a {what}", file=path)
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=path)
    if len(data) > limit:
        raise InputError(f"{what} is over {limit:,} bytes: refused (no real one comes near)",
                         file=path)
    return data


def parse_dbf(data: bytes, *, source=None, encoding: str = "cp1252", raw: bool = False,
              include_deleted: bool = False) -> DbfTable:
    """Parse the bytes of a dBase table.

    With ``raw=True`` every value is the field's text, without trailing
    blanks and NULs (C) or surrounding ones (other types); types are not
    interpreted, so no value can be refused.  Otherwise C is text, N/F a
    number (int when it has no decimals), D a ``datetime.date``, L a bool,
    and a blank value None.
    Deleted records are skipped unless ``include_deleted``.
    """
    data = bytes(data)
    fields, header_len, record_len, count, version, stamp = _parse_header(data, source)
    body = len(data) - header_len
    if count > body // record_len:
        raise InputError(
            f"header promises {count} records of {record_len} bytes, but only {body} bytes "
            f"follow the {header_len}-byte header (truncated file or corrupt header)",
            file=source, field="record count")
    if not raw:
        for f in fields:
            if f.type not in TYPED:
                raise InputError(f"field type {f.type!r} is not supported (only C, N, F, D, L)",
                                 file=source, field=f.name)
    offsets = []
    pos = 1
    for f in fields:
        offsets.append((f, pos, pos + f.length))
        pos += f.length
    records: list[DbfRecord] = []
    for index in range(count):
        start = header_len + index * record_len
        chunk = data[start:start + record_len]
        flag = chunk[0]
        if flag not in (0x20, 0x2A):
            raise InputError(f"deletion flag is byte 0x{flag:02X}, not ' ' or '*' "
                             "(record count or record length is wrong)",
                             file=source, record=index + 1)
        deleted = flag == 0x2A
        if deleted and not include_deleted:
            continue
        rec = DbfRecord(number=index + 1, deleted=deleted)
        for f, lo, hi in offsets:
            cell = chunk[lo:hi]
            if raw:
                cell = cell.rstrip(b" \x00") if f.type == "C" else cell.strip(b" \x00")
                rec[f.name] = cell.decode(encoding, errors="replace")
            else:
                try:
                    rec[f.name] = _convert(f, cell, encoding)
                except InputError as err:
                    raise err.located(file=source, record=index + 1, field=f.name)
        records.append(rec)
    return DbfTable(fields=fields, records=records, version=version, last_update=stamp,
                    source=str(source) if source is not None else None)


def _parse_header(data: bytes, source):
    if len(data) < 33:
        raise InputError(f"{len(data)} bytes is too short for a dBase file", file=source)
    version, yy, mm, dd, count, header_len, record_len = _HEADER.unpack_from(data, 0)
    if version not in VERSIONS:
        raise InputError(f"not a dBase table (version byte 0x{version:02X})", file=source)
    if header_len < 33 or header_len > len(data):
        raise InputError(f"header length {header_len} is impossible for a {len(data)}-byte file",
                         file=source, field="header length")
    if record_len < 2:
        raise InputError(f"record length {record_len} is impossible", file=source,
                         field="record length")
    fields: list[DbfField] = []
    names: set[str] = set()
    offset = 32
    while True:
        if offset >= header_len:
            raise InputError("field descriptors are not ended by 0x0D within the header",
                             file=source, field="header length")
        if data[offset] == 0x0D:
            break
        if offset + 32 > header_len:
            raise InputError("a field descriptor runs past the declared header length",
                             file=source, field="header length")
        raw_name, kind, length, decimals = _DESCRIPTOR.unpack_from(data, offset)
        name_bytes = raw_name.split(b"\x00", 1)[0].strip()
        name = name_bytes.decode("ascii", errors="replace")
        number = len(fields) + 1
        if not _NAME.match(name):
            raise InputError(f"field {number} has an invalid name {name!r}", file=source,
                             field=f"descriptor {number}")
        name = name.upper()
        if name in names:
            raise InputError("field name used twice", file=source, field=name)
        names.add(name)
        type_ = kind.decode("latin-1").upper()
        if type_ not in KNOWN_TYPES:
            raise InputError(f"unknown field type {type_!r}", file=source, field=name)
        if length == 0:
            raise InputError("field width 0", file=source, field=name)
        if type_ == "D" and length != 8:
            raise InputError(f"date field width {length}, not 8", file=source, field=name)
        fields.append(DbfField(name, type_, length, decimals))
        offset += 32
    if not fields:
        raise InputError("the table declares no fields", file=source)
    total = 1 + sum(f.length for f in fields)
    if total != record_len:
        raise InputError(f"record length {record_len} does not match the fields' widths "
                         f"(1 + {total - 1} = {total})", file=source, field="record length")
    try:
        stamp = _dt.date(1900 + yy, mm, dd)
    except ValueError:
        stamp = None
    return fields, header_len, record_len, count, version, stamp


def _convert(f: DbfField, cell: bytes, encoding: str) -> Any:
    if f.type == "C":
        return cell.rstrip(b" \x00").decode(encoding, errors="replace")
    text = cell.strip(b" \x00")
    if f.type in "NF":
        if not text:
            return None
        s = text.decode("ascii", errors="replace")
        if f.type == "N" and _NUMBER.match(s):
            value = float(s) if ("." in s or f.decimals) else int(s)
        elif f.type == "F" and _FLOAT.match(s):
            value = float(s)
        else:
            raise InputError(f"{s!r} is not a number")
        if isinstance(value, float) and not math.isfinite(value):
            raise InputError(f"{s!r} is not a finite number")
        return value
    if f.type == "D":
        if not text or text == b"00000000":
            return None
        s = text.decode("ascii", errors="replace")
        if len(s) != 8 or not s.isdigit():
            raise InputError(f"{s!r} is not a date YYYYMMDD")
        try:
            return _dt.date(int(s[:4]), int(s[4:6]), int(s[6:]))
        except ValueError:
            raise InputError(f"{s!r} is not a calendar date")
    if f.type == "L":
        if not text or text in (b"?",):
            return None
        if len(text) == 1 and text[0] in _TRUE:
            return True
        if len(text) == 1 and text[0] in _FALSE:
            return False
        raise InputError(f"{text.decode('latin-1')!r} is not a logical value (T/F/Y/N/?)")
    raise InputError(f"field type {f.type!r} is not supported")


# --------------------------------------------------------------------------
# Writing

def build_dbf(fields: Sequence[DbfField], records: Iterable[Mapping[str, Any]], *,
              encoding: str = "cp1252", last_update: Optional[_dt.date] = None,
              source=None) -> bytes:
    """The bytes of a dBase III table (version 0x03, no memo).

    ``records`` map field names to values: text for C, numbers (or numeric
    text) for N/F, dates (or ``YYYYMMDD`` text) for D, bools for L; None is
    blank.  A value that does not fit its field raises InputError.
    """
    fields = list(fields)
    if not fields:
        raise InputError("a table needs at least one field", file=source)
    seen: set[str] = set()
    for f in fields:
        if not _NAME.match(f.name) or len(f.name) > 10 or f.name.upper() in seen:
            raise InputError(f"bad or repeated field name {f.name!r}", file=source, field=f.name)
        seen.add(f.name.upper())
        if f.type not in TYPED:
            raise InputError(f"cannot write field type {f.type!r}", file=source, field=f.name)
        if not 1 <= f.length <= 255 or not 0 <= f.decimals <= 15:
            raise InputError(f"field width {f.length} is outside 1..255", file=source, field=f.name)
        if (f.type == "D" and f.length != 8) or (f.type == "L" and f.length != 1):
            raise InputError(f"{f.type} field must have width {8 if f.type == 'D' else 1}",
                             file=source, field=f.name)
    record_len = 1 + sum(f.length for f in fields)
    if record_len > 0xFFFF:
        raise InputError(f"records of {record_len} bytes are too long for dBase", file=source)
    body = bytearray()
    count = 0
    for number, rec in enumerate(records, start=1):
        body += b" "
        for f in fields:
            try:
                body += _encode(f, rec.get(f.name), encoding)
            except InputError as err:
                raise err.located(file=source, record=number, field=f.name)
        count = number
    stamp = last_update or _dt.date.today()
    header_len = 32 + 32 * len(fields) + 1
    out = bytearray(_HEADER.pack(0x03, max(0, min(255, stamp.year - 1900)), stamp.month,
                                 stamp.day, count, header_len, record_len))
    for f in fields:
        out += _DESCRIPTOR.pack(f.name.upper().encode("ascii"), f.type.encode("ascii"),
                                f.length, f.decimals)
    out += b"\x0d"
    out += body
    out += b"\x1a"
    return bytes(out)


def _encode(f: DbfField, value: Any, encoding: str) -> bytes:
    width = f.length
    if f.type == "C":
        text = "" if value is None else str(value)
        try:
            data = text.encode(encoding)
        except UnicodeEncodeError:
            raise InputError(f"{text!r} has characters that {encoding} cannot hold")
        if len(data) > width:
            raise InputError(f"{text!r} is longer than the field's {width} characters")
        return data.ljust(width, b" ")
    if f.type in "NF":
        if value is None or value == "":
            return b" " * width
        if isinstance(value, bool):
            raise InputError(f"{value!r} is not a number")
        if isinstance(value, str):
            s = value.strip()
            if not _FLOAT.match(s):
                raise InputError(f"{value!r} is not a number")
        elif isinstance(value, (int, float)):
            if isinstance(value, float) and not math.isfinite(value):
                raise InputError(f"{value!r} is not a finite number")
            if f.decimals:
                s = f"{float(value):.{f.decimals}f}"
            elif isinstance(value, float) and value != int(value):
                raise InputError(f"{value!r} needs decimals; the field has none")
            else:
                s = str(int(value))
        else:
            raise InputError(f"{value!r} is not a number")
        if len(s) > width:
            raise InputError(f"{s!r} does not fit the field's {width} characters")
        return s.rjust(width).encode("ascii")
    if f.type == "D":
        if value is None or value == "":
            return b" " * 8
        if isinstance(value, _dt.datetime):
            value = value.date()
        if isinstance(value, _dt.date):
            if value.year < 1000:
                raise InputError(f"{value} cannot be written as YYYYMMDD")
            return value.strftime("%Y%m%d").encode("ascii")
        if isinstance(value, str) and len(value) == 8 and value.isdigit():
            return value.encode("ascii")
        raise InputError(f"{value!r} is not a date")
    if f.type == "L":
        if value is None:
            return b"?"
        if isinstance(value, bool):
            return b"T" if value else b"F"
        raise InputError(f"{value!r} is not a logical value")
    raise InputError(f"cannot write field type {f.type!r}")


def write_dbf(path, fields: Sequence[DbfField], records: Iterable[Mapping[str, Any]], *,
              encoding: str = "cp1252", last_update: Optional[_dt.date] = None) -> None:
    """Write a table atomically (:func:`uschess.io.files.atomic_write`)."""
    data = build_dbf(fields, records, encoding=encoding, last_update=last_update, source=path)
    atomic_write({Path(path): data})


