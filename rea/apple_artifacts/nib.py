"""The NIBArchive format of compiled nibs, read by a bounded parser, and keyed-archive nibs as the same table.

Why our own parser: the one Python reader on PyPI (nibarchive) has had no release since 2023
and trusts every count and offset it reads. This one checks each count against the bytes
that could hold it and each index against the table it names, so a lying header or a
truncated file is a canonical error, never a crash or an unbounded loop.

Layout (little-endian): "NIBArchive", two u32 format words, then four (count, offset)
u32 pairs for objects, keys, values and class names. Integers inside the tables are
varints of 7-bit groups whose last byte has its high bit set. An object is (class index,
first value, value count); a value is (key index, type byte, payload); a class name is
(length, extra count, extra u32s, NUL-terminated name).

Both NIBArchive files and NSKeyedArchiver nibs become one `ObjectTable`: objects by
index, each with its class name and its fields in archive order, references as
{"$ref": index}. The Interface Builder projection (rea.apple_artifacts.interface) reads
only that table.
"""

from __future__ import annotations

import base64
import struct
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.apple_artifacts.keyed import uid_of
from rea.errors import ReaError, invalid_request

MAGIC = b"NIBArchive"
HEADER = struct.Struct("<10s2I8I")
MAX_ITEMS = 1_000_000
ACCEPTED = "a compiled nib: a NIBArchive file or an NSKeyedArchiver plist"
_FIXED = {0: "<b", 1: "<h", 2: "<i", 3: "<q", 6: "<f", 7: "<d"}


@attrs.frozen(kw_only=True)
class NibObject:
    index: int
    class_name: str
    fields: tuple[tuple[str, Any], ...]


@attrs.frozen(kw_only=True)
class ObjectTable:
    """A compiled nib's objects by archive index; `root` is the object the archive starts from."""

    format: str  # nib-archive | keyed-archive
    objects: tuple[NibObject, ...]
    root: int | None


class Malformed(ValueError):
    pass


class _Reader:
    def __init__(self, data: bytes, offset: int) -> None:
        self.data, self.at = data, offset

    def take(self, n: int) -> bytes:
        if n < 0 or self.at + n > len(self.data):
            raise Malformed(f"a field at byte {self.at} runs past the end of the file")
        chunk = self.data[self.at : self.at + n]
        self.at += n
        return chunk

    def varint(self) -> int:
        value = shift = 0
        for _ in range(10):
            byte = self.take(1)[0]
            value |= (byte & 0x7F) << shift
            if byte & 0x80:
                return value
            shift += 7
        raise Malformed(f"a varint at byte {self.at} is longer than 10 bytes")


def _section(data: bytes, count: int, offset: int, minimum: int, what: str) -> _Reader:
    """A table's reader, once its count is shown to fit the bytes after its offset."""
    if count > MAX_ITEMS or offset > len(data) or count * minimum > len(data) - offset:
        raise Malformed(f"the header claims {count} {what} at byte {offset}, more than the file can hold")
    return _Reader(data, offset)


def _value(reader: _Reader, kind: int, objects: int) -> Any:
    if kind in _FIXED:
        fmt = _FIXED[kind]
        number = struct.unpack(fmt, reader.take(struct.calcsize(fmt)))[0]
        return number if number == number and abs(number) != float("inf") else None
    if kind in (4, 5):
        return kind == 4
    if kind == 8:
        raw = reader.take(reader.varint())
        try:
            return raw.decode("utf-8") if b"\x00" not in raw else {"$data": base64.b64encode(raw).decode()}
        except UnicodeDecodeError:
            return {"$data": base64.b64encode(raw).decode("ascii")}
    if kind == 9:
        return None
    if kind == 10:
        target = struct.unpack("<I", reader.take(4))[0]
        if target >= objects:
            raise Malformed(f"a value points at object {target}; the archive has {objects}")
        return {"$ref": target}
    raise Malformed(f"value type {kind} is not a NIBArchive value type")


def _class_names(data: bytes, count: int, offset: int) -> list[str]:
    reader = _section(data, count, offset, 3, "class names")
    names = []
    for _ in range(count):
        length, extras = reader.varint(), reader.varint()
        reader.take(4 * extras)
        names.append(reader.take(length).rstrip(b"\x00").decode("utf-8", "replace"))
    return names


def parse_nib_archive(data: bytes) -> Result[ObjectTable, ReaError]:
    """The object table of a NIBArchive file, or why it cannot be read."""
    try:
        return Success(_parse(data))
    except Malformed as exc:
        return Failure(invalid_request(f"the NIBArchive is malformed: {exc}", accepted=ACCEPTED, reason="malformed"))


def _parse(data: bytes) -> ObjectTable:
    if len(data) < HEADER.size or not data.startswith(MAGIC):
        raise Malformed("it does not start with a NIBArchive header")
    _, _, _, n_obj, o_obj, n_key, o_key, n_val, o_val, n_cls, o_cls = HEADER.unpack_from(data)
    classes = _class_names(data, n_cls, o_cls)
    keys_reader = _section(data, n_key, o_key, 1, "keys")
    keys = [keys_reader.take(keys_reader.varint()).decode("utf-8", "replace") for _ in range(n_key)]
    values_reader = _section(data, n_val, o_val, 2, "values")
    values = []
    for _ in range(n_val):
        key = values_reader.varint()
        if key >= n_key:
            raise Malformed(f"a value names key {key}; the archive has {n_key}")
        values.append((keys[key], _value(values_reader, values_reader.take(1)[0], n_obj)))
    objects_reader = _section(data, n_obj, o_obj, 3, "objects")
    objects = []
    for index in range(n_obj):
        cls, first, count = objects_reader.varint(), objects_reader.varint(), objects_reader.varint()
        if cls >= n_cls or first + count > n_val:
            raise Malformed(f"object {index} names class {cls} or values {first}..{first + count} out of range")
        objects.append(NibObject(index=index, class_name=classes[cls], fields=tuple(values[first : first + count])))
    return ObjectTable(format="nib-archive", objects=tuple(objects), root=0 if objects else None)


def _keyed_value(value: Any) -> Any:
    target = uid_of(value)
    if target is not None:
        return {"$ref": target}
    if isinstance(value, list):
        return [_keyed_value(v) for v in value]
    return value


def keyed_table(archive: dict[str, Any]) -> ObjectTable:
    """A keyed-archive nib (already projected to JSON by rea.apple_artifacts.keyed) as an object table.

    Array-like objects keep their members as repeated NS.objects fields, as a NIBArchive keeps
    them as repeated UINibEncoderEmptyKey fields, so one projection reads both."""
    found = archive.get("$objects")
    table: list[Any] = found if isinstance(found, list) else []
    objects = []
    for index, value in enumerate(table):
        if not isinstance(value, dict) or "$class" not in value:
            continue
        class_id = uid_of(value.get("$class"))
        descriptor = table[class_id] if class_id is not None and 0 <= class_id < len(table) else None
        name = descriptor.get("$classname") if isinstance(descriptor, dict) else None
        fields: list[tuple[str, Any]] = []
        for key, item in value.items():
            if key == "$class":
                continue
            if isinstance(item, list) and key in ("NS.objects", "NS.keys"):
                fields.extend((key, _keyed_value(member)) for member in item)
            else:
                fields.append((key, _keyed_value(item)))
        objects.append(NibObject(index=index, class_name=name if isinstance(name, str) else "?", fields=tuple(fields)))
    given = archive.get("$top")
    top: dict[str, Any] = given if isinstance(given, dict) else {}
    root = uid_of(top.get("IB.objectdata")) if "IB.objectdata" in top else uid_of(top.get("root"))
    return ObjectTable(format="keyed-archive", objects=tuple(objects), root=root)
