"""The standard custom sections of a module (name, producers, target_features, dylink.0, sourceMappingURL).

WABT names custom sections but does not decode these; their formats are small
and fixed (tool-conventions), so they are read here, bounded, from the module
bytes. A section that does not decode is named in limitations, not guessed.
"""

from __future__ import annotations

from typing import IO, Any

from rea.wasm.binary import Reader, Truncated

MAX_SECTIONS = 100_000
MAX_CUSTOM_BYTES = 1 << 20
MAX_TABLE_BYTES = 64 << 20  # type, import, function, export and name payloads read whole for rea.wasm.binary
TABLES = (1, 2, 3, 7)
START_SECTION = 8


def _uleb_stream(handle: IO[bytes]) -> int | None:
    value = shift = 0
    while True:
        raw = handle.read(1)
        if not raw:
            return None
        value |= (raw[0] & 0x7F) << shift
        if not raw[0] & 0x80:
            return value
        shift += 7
        if shift > 35:
            return None


def _producers(r: Reader) -> list[dict[str, str]]:
    rows = []
    for _ in range(r.uleb()):
        field_name = r.name()
        for _ in range(r.uleb()):
            rows.append({"field_name": field_name, "name": r.name(), "version": r.name()})
    return rows


def _features(r: Reader) -> list[str]:
    return [chr(r.byte()) + r.name() for _ in range(r.uleb())]


def _dylink0(r: Reader) -> str:
    parts = []
    while not r.done():
        kind, size = r.byte(), r.uleb()
        body = Reader(r.data[r.at : r.at + size])
        r.at += size
        if kind == 1:  # WASM_DYLINK_MEM_INFO
            mem, align, table, talign = body.uleb(), body.uleb(), body.uleb(), body.uleb()
            parts.append(f"mem_size={mem} mem_align={align} table_size={table} table_align={talign}")
        elif kind == 2:
            needed = [body.name() for _ in range(body.uleb())]
            parts.append("needed=" + ",".join(needed))
        else:
            parts.append(f"subsection {kind} ({size} bytes)")
    return "; ".join(parts)


def _bounded(handle: IO[bytes], size: int, limit: int) -> bytes:
    payload = handle.read(min(size, limit))
    handle.seek(size - len(payload), 1)
    return payload


def _table(handle: IO[bytes], sid: int, size: int, tables: dict[str, Any]) -> None:
    """A standard section: its payload kept (the small tables) or only its leading count read."""
    if sid in TABLES:
        payload = _bounded(handle, size, MAX_TABLE_BYTES)
        tables["payloads"][sid] = payload
        if len(payload) < size:
            tables["limitations"].append(f"section {sid} is over {MAX_TABLE_BYTES} bytes: read in part")
        tables["counts"][sid] = Reader(payload).uleb() if payload else 0
        return
    if sid == START_SECTION:
        tables["counts"][sid] = 1
        handle.seek(size, 1)
        return
    start = handle.tell()
    count = _uleb_stream(handle) if size else 0
    tables["counts"][sid] = count or 0
    handle.seek(start + size)


def custom_sections(handle: IO[bytes]) -> dict[str, Any]:
    """The standard custom sections (see read_module)."""
    customs: dict[str, Any] = read_module(handle)["customs"]
    return customs


def read_module(handle: IO[bytes]) -> dict[str, Any]:
    """One walk over the sections: the decoded standard custom sections and the tables rea.wasm.binary reads.

    customs: names in order and the decoded standard sections, undecodable ones
    named in limitations; tables: payloads of the type, import, function and
    export sections, the name section's payload, and every other section's count.
    """
    found: dict[str, Any] = {
        "names": [],
        "name_section": False,
        "producers": [],
        "target_features": [],
        "source_mapping_url": None,
        "dylink": None,
        "limitations": [],
    }
    tables: dict[str, Any] = {"payloads": {}, "counts": {}, "name": None, "limitations": []}
    both = {"customs": found, "tables": tables}
    if handle.read(8)[:4] != b"\0asm":
        return both
    for _ in range(MAX_SECTIONS):
        head = handle.read(1)
        if not head:
            return both
        size = _uleb_stream(handle)
        if size is None:
            found["limitations"].append("the section list ends inside a section header")
            return both
        if head[0] != 0:
            try:
                _table(handle, head[0], size, tables)
            except Truncated:
                tables["limitations"].append(f"section {head[0]} has no readable count")
            continue
        start = handle.tell()
        payload = handle.read(min(size, MAX_CUSTOM_BYTES))
        handle.seek(start + size)
        r = Reader(payload)
        try:
            name = r.name()
        except Truncated:
            found["limitations"].append("a custom section's name runs past its payload")
            continue
        found["names"].append(name)
        if name == "name":
            handle.seek(start)
            tables["name"] = _bounded(handle, size, MAX_TABLE_BYTES)[r.at :]
        _decode_custom(found, name, payload, Reader(payload[r.at :]))
    found["limitations"].append(f"more than {MAX_SECTIONS} sections: custom sections past them were not read")
    return both


def _decode_custom(found: dict[str, Any], name: str, payload: bytes, body: Reader) -> None:
    try:
        if name == "name":
            found["name_section"] = True
        elif name == "producers":
            found["producers"] = _producers(body)
        elif name == "target_features":
            found["target_features"] = _features(body)
        elif name == "sourceMappingURL":
            found["source_mapping_url"] = body.name()
        elif name in ("dylink.0", "dylink"):
            found["dylink"] = _dylink0(body) if name == "dylink.0" else f"legacy dylink ({len(payload)} bytes)"
    except Truncated:
        found["limitations"].append(f"custom section {name!r} does not decode (truncated or over 1 MiB)")
