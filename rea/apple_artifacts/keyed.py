"""NSKeyedArchiver plists as an object table: nodes by original `$objects` index, links, never recursion.

Why a table and not a tree: a keyed archive is a graph. Objects point at each other by UID,
shared objects are pointed at many times and cycles are legal, so expanding references
would repeat or never end. Every object keeps its `$objects` index; a UID becomes a link
{source, path, target, status} that names both ends by index. Classes are never
instantiated: a class name is what the archive says, nothing more.

The plist decoding itself (plistlib, in the effect) arrives here as a JSON tree made by
`plist_json`: data and dates as typed `$plist_type` objects, integers beyond 2^53 as
decimal strings, binary UIDs as {"UID": n} and XML UIDs as the {"CF$UID": n} dictionaries
they are.
"""

from __future__ import annotations

import base64
import plistlib
from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.apple_artifacts.records import ArchiveLink, ArchiveObject
from rea.errors import ReaError, invalid_request

ObjectKind = Literal["nil", "scalar", "array", "dictionary", "class-descriptor", "archived-object"]
ObjectStatus = Literal["observed", "unknown-class", "unresolved-class", "nil"]
LinkStatus = Literal["resolved", "nil", "unresolved", "malformed"]
MAX_OBJECTS = 200_000
MAX_REFERENCES = 200_000
MAX_DEPTH = 128
MAX_VALUES = 2_000_000  # values one decoded plist may unfold to (shared references repeat)
SAFE = 2**53 - 1
ACCEPTED = "an NSKeyedArchiver plist ($archiver NSKeyedArchiver, an $objects array and $top roots)"
LIMITATIONS = (
    "Archive classes are never instantiated: class names and serialized fields are observed, "
    "class-specific meaning is unknown.",
    "A conditional reference archived as UID 0 cannot be told from an ordinary nil; missing fields stay absent.",
    "root selects one $top entry; paging keeps original $objects indices and never expands references.",
)


class TooDeep(ValueError):
    """A plist nests deeper than MAX_DEPTH (a recursion bomb is refused, never followed)."""


def plist_json(value: Any, binary: bool, max_values: int = MAX_VALUES) -> tuple[Any, int]:
    """A decoded plist value as JSON, and how many non-finite reals it held (they become typed nulls).

    A binary plist may point many times at one object (or at itself), so a small file can unfold
    into an exponential or endless tree: the conversion counts every value it emits and stops at
    max_values values or MAX_DEPTH levels. Every value of a plist costs at least one byte of it
    (a binary plist's shared value is still one object reference per use), so the reader passes
    the file's size: only a file that shares containers can exceed it."""
    budget = [min(max_values, MAX_VALUES)]
    return _convert(value, binary, 0, budget)


def _convert(value: Any, binary: bool, depth: int, budget: list[int]) -> tuple[Any, int]:
    budget[0] -= 1
    if depth > MAX_DEPTH or budget[0] < 0:
        raise TooDeep(f"the plist nests deeper than {MAX_DEPTH} levels or unfolds to more values than it has bytes")
    if isinstance(value, dict):
        out, bad = {}, 0
        for key, item in value.items():
            out[str(key)], n = _convert(item, binary, depth + 1, budget)
            bad += n
        return out, bad
    if isinstance(value, (list, tuple)):
        items = [_convert(item, binary, depth + 1, budget) for item in value]
        return [v for v, _ in items], sum(n for _, n in items)
    return _scalar(value, binary)


def _scalar(value: Any, binary: bool) -> tuple[Any, int]:
    if isinstance(value, plistlib.UID):
        return {"UID" if binary else "CF$UID": value.data}, 0
    if isinstance(value, (bytes, bytearray)):
        return {"$plist_type": "data", "base64": base64.b64encode(value).decode("ascii")}, 0
    if type(value).__name__ == "datetime":  # plistlib's dates are naive UTC (rea never imports the clock module)
        text = value.isoformat()
        return {"$plist_type": "date", "iso8601": text if value.tzinfo else text + "Z"}, 0
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value, 0
    if isinstance(value, int):
        return (value, 0) if -SAFE <= value <= SAFE else ({"$plist_type": "integer", "decimal": str(value)}, 0)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            return {"$plist_type": "real", "value": None}, 1
        return value, 0
    return {"$plist_type": "unknown", "python_type": type(value).__name__}, 0


def uid_of(value: Any) -> int | None:
    """The index a UID names: a one-key {"UID": n} or {"CF$UID": n} with an integer; None otherwise."""
    if not isinstance(value, dict) or len(value) != 1:
        return None
    marker = value.get("UID", value.get("CF$UID"))
    return marker if isinstance(marker, int) and not isinstance(marker, bool) else None


@attrs.frozen(kw_only=True)
class KeyedPage:
    """One page of an archive's object table with its roots and the links from them: the tool's result
    less what the effect read (the archive's path, digest and format)."""

    roots: Any
    objects: tuple[ArchiveObject, ...]
    references: tuple[ArchiveLink, ...]
    total_objects: int
    total_references: int
    offset: int
    next_offset: int | None
    truncated: bool
    limitations: tuple[str, ...]


class _Scan:
    """Every UID below one value, found with an explicit stack (no recursion, bounded)."""

    def __init__(self, table: list[Any]) -> None:
        self.table: list[Any] = table
        self.links: list[ArchiveLink] = []

    def run(self, source: int | None, initial: Any) -> None:
        pending: list[tuple[Any, tuple[str | int, ...]]] = [(initial, ())]
        visited = 0
        while pending:
            value, path = pending.pop()
            visited += 1
            if visited > MAX_REFERENCES or len(path) > MAX_DEPTH:
                raise TooDeep(f"an archive value holds more than {MAX_REFERENCES} values or {MAX_DEPTH} levels")
            target = uid_of(value)
            if target is not None:
                self.links.append(ArchiveLink(source=source, path=path, target=target if target >= 0 else None,
                                              status=self._status(target), raw=value))  # fmt: skip
                if len(self.links) > MAX_REFERENCES:
                    raise TooDeep(f"the archive holds more than {MAX_REFERENCES} references")
            elif isinstance(value, list):
                pending.extend((value[i], (*path, i)) for i in reversed(range(len(value))))
            elif isinstance(value, dict):
                pending.extend((value[k], (*path, k)) for k in sorted(value, reverse=True))

    def _status(self, target: int) -> LinkStatus:
        if target < 0:
            return "malformed"
        if target >= len(self.table):
            return "unresolved"
        return "nil" if target == 0 and self.table[0] == "$null" else "resolved"


def _object(table: list[Any], index: int, value: Any) -> ArchiveObject:
    fields = value if isinstance(value, dict) else None
    class_id = uid_of(fields.get("$class")) if fields is not None else None
    class_id = class_id if class_id is not None and class_id >= 0 else None
    descriptor = table[class_id] if class_id is not None and class_id < len(table) else None
    name = descriptor.get("$classname") if isinstance(descriptor, dict) else None
    class_name = name if isinstance(name, str) else None
    is_nil = index == 0 and value == "$null"
    kind: ObjectKind
    status: ObjectStatus
    if is_nil:
        kind = "nil"
    elif isinstance(value, list):
        kind = "array"
    elif fields is None:
        kind = "scalar"
    elif isinstance(fields.get("$classname"), str):
        kind = "class-descriptor"
    else:
        kind = "archived-object" if "$class" in fields else "dictionary"
    if is_nil:
        status = "nil"
    elif fields is not None and "$class" in fields:
        status = "unresolved-class" if class_name is None else "unknown-class"
    else:
        status = "observed"
    return ArchiveObject(id=index, kind=kind, class_id=class_id, class_name=class_name, status=status, value=value)


def _refuse(message: str, reason: str) -> Failure[ReaError]:
    return Failure(invalid_request(message, field="path", accepted=ACCEPTED, reason=reason))


def project(archive: Any, root: str | None, offset: int, limit: int) -> Result[KeyedPage, ReaError]:
    """The page of the archive's object table, its roots and the links from the roots and the page."""
    if not isinstance(archive, dict) or "$archiver" not in archive:
        return _refuse("the plist has no $archiver key: it is an ordinary property list (inspect_plist reads it)",
                       "not-keyed-archive")  # fmt: skip
    if archive.get("$archiver") != "NSKeyedArchiver" or not isinstance(archive.get("$objects"), list):
        return _refuse(f"its $archiver is {archive.get('$archiver')!r} or $objects is not an array",
                       "not-keyed-archive")  # fmt: skip
    table: list[Any] = archive["$objects"]
    if len(table) > MAX_OBJECTS:
        return _refuse(f"the archive has {len(table)} objects, more than {MAX_OBJECTS}", "too-large")
    top = archive.get("$top")
    if not isinstance(top, dict) or not top:
        return _refuse("the keyed archive has no $top roots", "no-roots")
    if root is not None and root not in top:
        return Failure(
            invalid_request(f"the archive has no root {root!r}", field="root", accepted=", ".join(sorted(top)))
        )
    roots = top if root is None else {root: top[root]}
    scan = _Scan(table)
    try:
        scan.run(None, roots)
        objects = []
        for index, value in enumerate(table):
            scan.run(index, value)
            objects.append(_object(table, index, value))
    except TooDeep as exc:
        return _refuse(str(exc), "too-large")
    end = min(len(objects), offset + limit)
    page = objects[offset:end]
    ids = {o.id for o in page}
    return Success(KeyedPage(
        roots=roots,
        objects=tuple(page),
        references=tuple(link for link in scan.links if link.source is None or link.source in ids),
        total_objects=len(objects),
        total_references=len(scan.links),
        offset=offset,
        next_offset=end if end < len(objects) else None,
        truncated=len(page) != len(objects),
        limitations=tuple(LIMITATIONS),
    ))  # fmt: skip
