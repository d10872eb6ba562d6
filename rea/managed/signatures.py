"""ECMA-335 II.23.2 signature blobs decoded to ILAsm-style type names, bounded and total.

A blob comes from the #Blob heap as bytes; decoding never reads past it, never recurses deeper
than MAX_DEPTH and never loops more than the blob's length, so a lying length or a cyclic
shape ends as `malformed` with what was decoded, never as an exception or a hang.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Literal

import attrs

MAX_DEPTH = 64
TypeNamer = Callable[[int], str]  # a TypeDefOrRef token -> its name

_PRIMITIVES = {
    0x01: "void", 0x02: "bool", 0x03: "char", 0x04: "int8", 0x05: "uint8", 0x06: "int16", 0x07: "uint16",
    0x08: "int32", 0x09: "uint32", 0x0A: "int64", 0x0B: "uint64", 0x0C: "float32", 0x0D: "float64",
    0x0E: "string", 0x16: "typedref", 0x18: "native int", 0x19: "native uint", 0x1C: "object",
}  # fmt: skip
_CONVENTIONS = {0x0: "default", 0x1: "c", 0x2: "stdcall", 0x3: "thiscall", 0x4: "fastcall", 0x5: "vararg"}
_TYPEDEF_OR_REF = (0x02, 0x01, 0x1B)  # TypeDef, TypeRef, TypeSpec table numbers by tag


class Malformed(Exception):
    """The blob ended or lied; carries why."""


@attrs.frozen(kw_only=True)
class Signature:
    raw_length: int
    raw_sha256: str
    kind: Literal["method", "field", "unknown"]
    parse_status: Literal["decoded", "partial", "unsupported", "malformed"]
    calling_convention: str | None
    generic_parameter_count: int | None
    parameter_count: int | None
    return_type: str | None
    parameter_types: tuple[str, ...]
    field_type: str | None
    issue: str | None


class _Reader:
    def __init__(self, blob: bytes, namer: TypeNamer) -> None:
        self.blob = blob
        self.at = 0
        self.namer = namer

    def byte(self) -> int:
        if self.at >= len(self.blob):
            raise Malformed(f"blob ends at byte {self.at}")
        value = self.blob[self.at]
        self.at += 1
        return value

    def compressed(self) -> int:
        first = self.byte()
        if first & 0x80 == 0:
            return first
        if first & 0xC0 == 0x80:
            return (first & 0x3F) << 8 | self.byte()
        if first & 0xE0 == 0xC0:
            return (first & 0x1F) << 24 | self.byte() << 16 | self.byte() << 8 | self.byte()
        raise Malformed(f"invalid compressed integer 0x{first:02x} at byte {self.at - 1}")

    def type_token(self) -> int:
        coded = self.compressed()
        tag = coded & 0x3
        if tag == 3:
            raise Malformed("TypeDefOrRef tag 3 is invalid")
        return _TYPEDEF_OR_REF[tag] << 24 | coded >> 2

    def type(self, depth: int = 0) -> str:
        if depth > MAX_DEPTH:
            raise Malformed(f"type nesting deeper than {MAX_DEPTH}")
        code = self.byte()
        if code in _PRIMITIVES:
            return _PRIMITIVES[code]
        handler = _TYPE_CODES.get(code)
        if handler is None:
            raise Malformed(f"unknown element type 0x{code:02x} at byte {self.at - 1}")
        return handler(self, depth + 1)


def _class(r: _Reader, depth: int) -> str:
    return "class " + r.namer(r.type_token())


def _valuetype(r: _Reader, depth: int) -> str:
    return "valuetype " + r.namer(r.type_token())


def _generic_inst(r: _Reader, depth: int) -> str:
    kind = "valuetype " if r.byte() == 0x11 else "class "
    base = kind + r.namer(r.type_token())
    count = r.compressed()
    if count > len(r.blob):
        raise Malformed(f"generic argument count {count} exceeds the blob")
    return base + "<" + ", ".join(r.type(depth) for _ in range(count)) + ">"


def _array(r: _Reader, depth: int) -> str:
    element = r.type(depth)
    rank = r.compressed()
    for _ in range(min(r.compressed(), len(r.blob))):  # sizes
        r.compressed()
    for _ in range(min(r.compressed(), len(r.blob))):  # lower bounds
        r.compressed()
    return element + "[" + "," * max(rank - 1, 0) + "]"


def _modifier(r: _Reader, depth: int) -> str:
    kind = "modreq" if r.blob[r.at - 1] == 0x1F else "modopt"
    token = r.type_token()
    return f"{r.type(depth)} {kind}({r.namer(token)})"


def _fnptr(r: _Reader, depth: int) -> str:
    inner = _method(r, depth)
    return f"method {inner.return_type or '?'} *({', '.join(inner.parameter_types)})"


_TYPE_CODES: dict[int, Callable[[_Reader, int], str]] = {
    0x0F: lambda r, d: r.type(d) + "*",
    0x10: lambda r, d: r.type(d) + "&",
    0x11: _valuetype,
    0x12: _class,
    0x13: lambda r, d: f"!{r.compressed()}",
    0x14: _array,
    0x15: _generic_inst,
    0x1B: _fnptr,
    0x1D: lambda r, d: r.type(d) + "[]",
    0x1E: lambda r, d: f"!!{r.compressed()}",
    0x1F: _modifier,
    0x20: _modifier,
    0x41: lambda r, d: "...",  # SENTINEL (vararg call sites)
    0x45: lambda r, d: r.type(d) + " pinned",
}


@attrs.frozen(kw_only=True)
class _Method:
    convention: str
    generic_count: int | None
    return_type: str | None
    parameter_types: tuple[str, ...]


def _method(r: _Reader, depth: int) -> _Method:
    head = r.byte()
    convention = ("instance " if head & 0x20 else "") + _CONVENTIONS.get(head & 0xF, f"0x{head & 0xF:x}")
    generic = r.compressed() if head & 0x10 else None
    count = r.compressed()
    if count > len(r.blob):
        raise Malformed(f"parameter count {count} exceeds the {len(r.blob)}-byte blob")
    returns = r.type(depth)
    parameters = tuple(r.type(depth) for _ in range(count))
    return _Method(convention=convention, generic_count=generic, return_type=returns, parameter_types=parameters)


def _empty(blob: bytes, kind: Literal["method", "field", "unknown"], status: str, issue: str | None) -> Signature:
    return Signature(
        raw_length=len(blob), raw_sha256=hashlib.sha256(blob).hexdigest(), kind=kind,
        parse_status=status,  # type: ignore[arg-type]
        calling_convention=None, generic_parameter_count=None, parameter_count=None, return_type=None,
        parameter_types=(), field_type=None, issue=issue,
    )  # fmt: skip


def decode(blob: bytes | None, namer: TypeNamer) -> Signature:
    """A MethodDefSig, MethodRefSig or FieldSig; anything else is `unsupported`."""
    if blob is None:
        return _empty(b"", "unknown", "malformed", "the signature blob could not be read")
    if not blob:
        return _empty(blob, "unknown", "malformed", "empty signature blob")
    head = blob[0]
    if head & 0xF == 0x6:
        return _field(blob, namer)
    if head & 0xF > 0x5:
        return _empty(blob, "unknown", "unsupported", f"signature kind 0x{head & 0xF:x} is not a method or field")
    r = _Reader(blob, namer)
    try:
        m = _method(r, 0)
    except Malformed as exc:
        return attrs.evolve(_empty(blob, "method", "malformed", str(exc)), calling_convention=None)
    return Signature(
        raw_length=len(blob), raw_sha256=hashlib.sha256(blob).hexdigest(), kind="method",
        parse_status="decoded" if r.at == len(blob) else "partial", calling_convention=m.convention,
        generic_parameter_count=m.generic_count, parameter_count=len(m.parameter_types), return_type=m.return_type,
        parameter_types=m.parameter_types, field_type=None,
        issue=None if r.at == len(blob) else f"{len(blob) - r.at} trailing bytes",
    )  # fmt: skip


def _field(blob: bytes, namer: TypeNamer) -> Signature:
    r = _Reader(blob, namer)
    r.at = 1
    try:
        field_type = r.type()
    except Malformed as exc:
        return _empty(blob, "field", "malformed", str(exc))
    return attrs.evolve(
        _empty(blob, "field", "decoded" if r.at == len(blob) else "partial", None),
        calling_convention="field",
        field_type=field_type,
        issue=None if r.at == len(blob) else f"{len(blob) - r.at} trailing bytes",
    )


def type_spec(blob: bytes | None, namer: TypeNamer) -> str | None:
    """A TypeSpec blob's type (a generic instantiation, an array, a generic parameter), or None."""
    if not blob:
        return None
    r = _Reader(blob, namer)
    try:
        return r.type()
    except Malformed:
        return None


def first_string_argument(value: bytes | None, constructor: bytes | None) -> str | None:
    """A custom attribute's first fixed argument when the constructor's first parameter is a string."""
    if not value or not constructor or len(value) < 3 or value[:2] != b"\x01\x00":
        return None
    if len(constructor) < 4 or constructor[1] < 1 or constructor[3] != 0x0E:
        return None
    r = _Reader(value, lambda token: "")
    r.at = 2
    try:
        if r.blob[r.at] == 0xFF:
            return None  # a null string
        length = r.compressed()
    except (Malformed, IndexError):
        return None
    if r.at + length > len(value):
        return None
    return value[r.at : r.at + length].decode("utf-8", "replace")
