"""The module's own tables decoded from its section payloads: types, imports, functions, exports, counts.

WABT's `-x` lines are text made for people (an import target `a.b.c` cannot be
split back into module and field); the binary format can, so the records an agent
queries come from the bytes, and WABT's lines stay beside them as written. Pure:
the effect hands over the payloads of the small sections (type, import, function,
export, the name section) and the first count of every other one. A payload that
does not decode stops that table where it broke and says so in `limitations`;
nothing past it is guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Literal

import attrs

from rea.wasm.records import ModuleCounts, SectionCounts, WasmExport, WasmFunction, WasmImport

# Section ids of the core spec (and the tag section of exception handling).
SECTION_NAMES = {
    1: "types",
    2: "imports",
    3: "defined_functions",
    4: "tables",
    5: "memories",
    6: "globals",
    7: "exports",
    8: "start",
    9: "elements",
    10: "code",
    11: "data_segments",
    12: "data_count",
    13: "tags",
}
Kind = Literal["func", "table", "memory", "global", "tag"]
KINDS: tuple[Kind, ...] = ("func", "table", "memory", "global", "tag")
VALUE_TYPES = {
    0x7F: "i32",
    0x7E: "i64",
    0x7D: "f32",
    0x7C: "f64",
    0x7B: "v128",
    0x70: "funcref",
    0x6F: "externref",
    0x6E: "anyref",
    0x6D: "eqref",
    0x6C: "i31ref",
    0x6B: "structref",
    0x6A: "arrayref",
    0x69: "exnref",
    0x71: "nullref",
    0x72: "nullexternref",
    0x73: "nullfuncref",
}
FUNC_FORM = 0x60
_PLURALS = {"table": "tables", "memory": "memories", "global": "globals", "tag": "tags"}


class Truncated(Exception):
    """The payload ended, or held a form this decoder does not read, inside an entry."""


class Reader:
    """Bounds-checked LEB128 and name reads over one payload (the custom-section decoder uses it too)."""

    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def byte(self) -> int:
        if self.at >= len(self.data):
            raise Truncated("payload ends inside an entry")
        self.at += 1
        return self.data[self.at - 1]

    def uleb(self) -> int:
        value = shift = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            if not b & 0x80:
                return value
            shift += 7
            if shift > 63:
                raise Truncated("LEB128 longer than 64 bits")

    def sleb(self) -> int:
        value = shift = 0
        while True:
            b = self.byte()
            value |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                return value - (1 << shift) if b & 0x40 else value
            if shift > 63:
                raise Truncated("LEB128 longer than 64 bits")

    def name(self) -> str:
        size = self.uleb()
        if self.at + size > len(self.data):
            raise Truncated("a name runs past its payload")
        self.at += size
        return self.data[self.at - size : self.at].decode("utf-8", "replace")

    def done(self) -> bool:
        return self.at >= len(self.data)

    def value_type(self) -> str:
        code = self.byte()
        if code in (0x63, 0x64):  # (ref null? heaptype), typed function references / GC
            heap = self.sleb()
            named = VALUE_TYPES.get(heap & 0x7F, str(heap)) if heap < 0 else str(heap)
            return f"(ref {'null ' if code == 0x63 else ''}{named})"
        if code not in VALUE_TYPES:
            raise Truncated(f"value type 0x{code:02x} is not one this decoder reads")
        return VALUE_TYPES[code]

    def limits(self) -> tuple[int, int | None]:
        flags = self.uleb()
        low = self.uleb()
        return low, (self.uleb() if flags & 1 else None)


def _signature(params: list[str], results: list[str]) -> str:
    """WABT's own spelling ("(i32, i32) -> i32", "() -> nil", "() -> (i32, f64)"), so the two can be compared."""
    right = "nil" if not results else results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
    return f"({', '.join(params)}) -> {right}"


def _vector(data: bytes, entry: Callable[[Reader], Any], what: str, limitations: list[str]) -> list[Any]:
    """Entries of one vector section up to the first that does not decode (named in limitations)."""
    r, rows = Reader(data), []
    try:
        for _ in range(r.uleb()):
            rows.append(entry(r))
    except Truncated as exc:
        limitations.append(f"the {what} section stops decoding after {len(rows)} entries: {exc}")
    return rows


def _func_type(r: Reader) -> str:
    form = r.byte()
    if form != FUNC_FORM:
        raise Truncated(f"type form 0x{form:02x} (a GC or recursive type) is not decoded")
    params = [r.value_type() for _ in range(r.uleb())]
    return _signature(params, [r.value_type() for _ in range(r.uleb())])


def _import_desc(r: Reader, kind: int) -> tuple[int | None, str | None]:
    """(type index, description) of one import's descriptor."""
    if kind == 0:
        return r.uleb(), None
    if kind == 1:
        ref = r.value_type()
        low, high = r.limits()
        return None, f"{ref} initial={low}" + (f" max={high}" if high is not None else "")
    if kind == 2:
        low, high = r.limits()
        return None, f"pages: initial={low}" + (f" max={high}" if high is not None else "")
    if kind == 3:
        value = r.value_type()
        return None, f"{value} mutable={r.byte()}"
    if kind == 4:
        r.byte()  # attribute: 0, exception
        return r.uleb(), None
    raise Truncated(f"import kind 0x{kind:02x} is not one this decoder reads")


@attrs.frozen(kw_only=True)
class _Import:
    """One import entry as read, before its index in its own space is known."""

    module: str
    name: str
    kind: Kind
    type_index: int | None
    description: str | None


def _import(r: Reader) -> _Import:
    module, name = r.name(), r.name()
    kind = r.byte()
    type_index, description = _import_desc(r, kind)
    return _Import(module=module, name=name, kind=KINDS[kind], type_index=type_index, description=description)


def _export(r: Reader) -> WasmExport:
    name = r.name()
    kind = r.byte()
    if kind >= len(KINDS):
        raise Truncated(f"export kind 0x{kind:02x} is not one this decoder reads")
    return WasmExport(name=name, kind=KINDS[kind], index=r.uleb(), module=None, signature=None, line=None)


def function_names(payload: bytes) -> dict[int, str]:
    """Function names of the `name` custom section's subsection 1 (the rest is skipped)."""
    r, names = Reader(payload), {}
    try:
        while r.at < len(r.data):
            sub, size = r.byte(), r.uleb()
            end = r.at + size
            if sub == 1:
                for _ in range(r.uleb()):
                    index = r.uleb()
                    names[index] = r.name()
            r.at = end
    except Truncated:
        pass  # names are a convenience; WABT's report still carries the section
    return names


def _numbered(imports: list[_Import], types: list[str]) -> list[WasmImport]:
    """Each import's index in its own space (imports come first in every space), and its type."""
    seen: dict[str, int] = {}
    rows = []
    for row in imports:
        index = seen.get(row.kind, 0)
        rows.append(
            WasmImport(
                module=row.module,
                name=row.name,
                kind=row.kind,
                type_index=row.type_index,
                description=row.description,
                index=index,
                signature=_type_of(types, row.type_index),
                line=None,
            )
        )
        seen[row.kind] = index + 1
    return rows


def _type_of(types: list[str], index: int | None) -> str | None:
    return types[index] if index is not None and 0 <= index < len(types) else None


@attrs.frozen(kw_only=True)
class ModuleTables:
    """What the module's own bytes say: counts (custom_sections left 0 for the caller), imports, exports, functions."""

    counts: ModuleCounts
    imports: tuple[WasmImport, ...]
    exports: tuple[WasmExport, ...]
    functions: tuple[WasmFunction, ...]
    limitations: tuple[str, ...]


def _functions(
    imported: list[WasmImport], defined: list[int], types: list[str], names: dict[int, str]
) -> list[WasmFunction]:
    """The function index space: imported functions first, then those defined here."""
    functions = [
        WasmFunction(
            index=i.index,
            name=names.get(i.index),
            imported=True,
            module=i.module,
            import_name=i.name,
            type_index=i.type_index if i.type_index is not None else 0,  # a func import always has one
            signature=i.signature,
        )
        for i in imported
    ]
    return functions + [
        WasmFunction(
            index=len(imported) + n,
            name=names.get(len(imported) + n),
            imported=False,
            module=None,
            import_name=None,
            type_index=t,
            signature=_type_of(types, t),
        )
        for n, t in enumerate(defined)
    ]


def decode_module(payloads: Mapping[int, bytes], counts: Mapping[int, int], name_payload: bytes | None) -> ModuleTables:
    """Counts, and imports, exports and functions as records, from the sections' bytes.

    `payloads` holds sections 1, 2, 3 and 7 whole; `counts` the leading count of
    every vector section present (1 for a start section).
    """
    limitations: list[str] = []
    types = _vector(payloads.get(1, b""), _func_type, "type", limitations)
    imports = _numbered(_vector(payloads.get(2, b""), _import, "import", limitations), types)
    defined = _vector(payloads.get(3, b""), lambda r: r.uleb(), "function", limitations)
    exports = _vector(payloads.get(7, b""), _export, "export", limitations)
    names = function_names(name_payload) if name_payload else {}
    imported = [i for i in imports if i.kind == "func"]
    functions = _functions(imported, defined, types, names)
    signature = {f.index: f.signature for f in functions}
    exports = [attrs.evolve(e, signature=signature.get(e.index) if e.kind == "func" else None) for e in exports]
    imported_in = {plural: sum(1 for i in imports if i.kind == k) for k, plural in _PLURALS.items()}
    module_counts = ModuleCounts(
        functions=len(functions),
        imported_functions=len(imported),
        defined_functions=len(defined),
        imported_tables=imported_in["tables"],
        imported_memories=imported_in["memories"],
        imported_globals=imported_in["globals"],
        imported_tags=imported_in["tags"],
        custom_sections=0,
        sections=SectionCounts(**{label: counts.get(sid, 0) for sid, label in SECTION_NAMES.items()}),
    )
    return ModuleTables(
        counts=module_counts,
        imports=tuple(imports),
        exports=tuple(exports),
        functions=tuple(functions),
        limitations=tuple(limitations),
    )
