"""Names from a target as Evidence can hold them.

File systems and archives hand Python names that are not valid Unicode: bytes that are not UTF-8 arrive as
lone surrogates (`surrogateescape`), and JSON escapes can carry one too. Canonical JSON (RFC 8785) cannot
encode them, so one such name would make a whole record impossible to seal. They are shown instead with each
undecodable byte as `%XX` (and any other lone surrogate as `%uDXXX`): distinct names stay distinct, no path
separator or backslash is introduced, and the record still says what the bytes were.
"""

from __future__ import annotations


def printable(name: str) -> str:
    """`name` unchanged when it is valid Unicode; otherwise with its lone surrogates percent-escaped."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return "".join(_escape(c) if "\ud800" <= c <= "\udfff" else c for c in name)
    return name


def _escape(surrogate: str) -> str:
    code = ord(surrogate)
    return f"%{code - 0xDC00:02X}" if 0xDC80 <= code <= 0xDCFF else f"%u{code:04X}"
