"""What the managed reader effect hands the pure core: plain PE/CLI facts, metadata rows, CIL bodies.

The effect (effects/managed/reader.py) parses with dnfile and dncil and reduces what they found to
these records: integers, strings, small blobs (bounded by max_heap_item_bytes) and digests of the
large parts (resources, method bodies). Classification, identity, signatures and policy are
decided in rea/managed from these values alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import attrs

# a metadata row's value: an int (flags, RVAs, indexes, coded tokens), a heap string (None when it
# could not be decoded), a blob's bytes (None when out of bounds), a GUID string
Value = int | str | bytes | None


@attrs.frozen(kw_only=True)
class ManagedLimits:
    max_file_bytes: int
    max_metadata_bytes: int
    max_heap_item_bytes: int
    max_table_rows: int
    max_method_body_bytes: int = 1 << 20
    max_method_instructions: int = 100_000

    def to_json(self) -> dict[str, int]:
        return attrs.asdict(self)


@attrs.frozen(kw_only=True)
class ReadManagedAssembly:
    """Parse a PE/CLI file without loading or running it; with `bodies`, decode every CIL body."""

    path: str
    limits: ManagedLimits
    bodies: bool = False


@attrs.frozen(kw_only=True)
class Issue:
    code: str
    scope: str
    offset: int | None
    detail: str


@attrs.frozen(kw_only=True)
class PeHeader:
    machine: int
    magic: int  # 0x10b PE32, 0x20b PE32+
    section_count: int
    characteristics: int
    exports: tuple[str, ...] = ()  # names in the native export directory (mixed-mode images)


@attrs.frozen(kw_only=True)
class CliFacts:
    header_offset: int
    cb: int
    flags: int
    entry_point: int
    metadata_rva: int
    metadata_size: int
    resources_rva: int
    resources_size: int
    strong_name_rva: int
    strong_name_size: int
    native_header_rva: int
    native_header_size: int
    ready_to_run_signature: bool
    vtable_fixups_size: int = 0
    export_jumps_size: int = 0
    strong_name_signature: bytes = b""  # the signature blob (little-endian RSA value)
    strong_name_digests: tuple[tuple[str, bytes], ...] = ()  # image hash by algorithm name (II.6.2.1.3)


@attrs.frozen(kw_only=True)
class Row:
    """One metadata row: its 1-based index, file offset and named values (dnfile's column names)."""

    index: int
    offset: int
    values: Mapping[str, Value]


@attrs.frozen(kw_only=True)
class Table:
    name: str
    number: int
    declared_rows: int
    rows: tuple[Row, ...]


class Instruction(NamedTuple):
    """A decoded instruction (a NamedTuple: a large body makes hundreds of thousands of them)."""

    offset: int
    opcode: str
    operand_type: str  # dncil's OperandType name (InlineMethod, ShortInlineBrTarget, ...)
    operand: Any  # int (token, constant, target), float, str, tuple of int (switch), None


@attrs.frozen(kw_only=True)
class Region:
    flags: int
    try_offset: int
    try_length: int
    handler_offset: int
    handler_length: int
    class_token: int | None
    filter_offset: int | None


@attrs.frozen(kw_only=True)
class Body:
    """A method body as read: header facts, the raw CIL's digest and the decoded instructions."""

    method_row: int
    rva: int
    file_offset: int | None
    header_format: str  # tiny | fat | unknown
    max_stack: int | None
    init_locals: bool | None
    local_var_sig_token: int | None
    il_size: int
    il_sha256: str | None
    instructions: tuple[Instruction, ...]
    instruction_total: int
    regions: tuple[Region, ...]
    issue: str | None


@attrs.frozen(kw_only=True)
class ResourceData:
    row: int
    length: int | None
    sha256: str | None


@attrs.frozen(kw_only=True)
class PdbDocument:
    name: str
    hash_algorithm: str | None  # GUID
    hash: str  # hex
    language: str | None  # GUID


@attrs.frozen(kw_only=True)
class PdbFacts:
    """The portable PDB beside an assembly (effects/managed/pdb.py); `issues` when it could not be read whole."""

    path: str
    size: int
    sha256: str | None
    pdb_guid: str | None = None
    pdb_stamp: int | None = None
    entry_point: int | None = None
    documents: tuple[PdbDocument, ...] = ()
    method_debug_rows: int = 0
    with_sequence_points: int = 0
    row_counts: Mapping[str, int] = attrs.field(factory=dict)
    referenced_rows: Mapping[int, int] = attrs.field(factory=dict)
    issues: tuple[str, ...] = ()


@attrs.frozen(kw_only=True)
class CodeView:
    """The assembly's RSDS debug record: the PDB it was built with."""

    guid: str
    age: int
    path: str


@attrs.frozen(kw_only=True)
class AssemblyFacts:
    path: str
    size: int
    sha256: str
    pe: PeHeader | None
    cli: CliFacts | None
    metadata_version: str | None
    metadata_present: bool
    streams: tuple[str, ...]
    tables: Mapping[str, Table]
    resources: tuple[ResourceData, ...]
    bodies: tuple[Body, ...]
    issues: tuple[Issue, ...]
    pdb: PdbFacts | None = None
    codeview: CodeView | None = None

    def rows(self, table: str) -> tuple[Row, ...]:
        found = self.tables.get(table)
        return found.rows if found is not None else ()
