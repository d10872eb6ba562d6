"""The managed reader effect: dnfile (PE/CLI metadata) and dncil (CIL bodies) reduced to plain facts.

Nothing here decides what the facts mean. Every bound is a limit from the request: the file is
refused above max_file_bytes, the metadata rows are not read above max_metadata_bytes, at most
max_table_rows rows are read per table (dnfile loads rows lazily), heap items above
max_heap_item_bytes are dropped, and a CIL body is decoded from at most max_method_body_bytes
(effects/managed/cil.py, with dncil's opcode tables).
What a limit or damage kept out is an Issue for the core to report.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
import uuid
from collections.abc import Iterator
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects.fs import NotRegular, open_regular, target_unavailable
from effects.managed import cil
from effects.managed.pdb import read_companion
from effects.progress import Progress
from rea.errors import ReaError
from rea.managed.facts import (
    AssemblyFacts,
    Body,
    CliFacts,
    CodeView,
    Issue,
    ManagedLimits,
    PeHeader,
    ReadManagedAssembly,
    ResourceData,
    Row,
    Table,
    Value,
)

RTR_SIGNATURE = b"RTR\x00"
# target_unavailable with the reason effects/fs.py gives a non-regular target (a managed path is never a directory)
NOT_REGULAR = "it is not a regular file (device, FIFO or socket files are never opened)"
logging.getLogger("dnfile").setLevel(logging.CRITICAL)


def _unreadable(path: str, why: str, code: str = "target_unavailable", **details: Any) -> ReaError:
    return ReaError(
        code=code,
        message=f"Cannot read {path!r} as a managed assembly: {why}.",
        details={"path": path, "reason": why, **details},
        action="Pass an absolute path to a readable PE/CLI file (.dll or .exe).",
    )


def _read_file(path: str, limits: ManagedLimits) -> Result[bytes, ReaError]:
    try:
        fd = open_regular(path)
    except NotRegular:
        return Failure(target_unavailable(path, NOT_REGULAR))
    except OSError as exc:
        return Failure(_unreadable(path, exc.strerror or str(exc)))
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limits.max_file_bytes:
            return Failure(
                _unreadable(
                    path,
                    f"it is {size} bytes, above max_file_bytes={limits.max_file_bytes}",
                    code="resource_constraint",
                    limit="max_file_bytes",
                    value=limits.max_file_bytes,
                    observed=size,
                )
            )
        try:
            return Success(handle.read(limits.max_file_bytes + 1))
        except OSError as exc:
            return Failure(_unreadable(path, exc.strerror or str(exc)))


def _heap_value(value: Any, cap: int) -> tuple[Value, bool]:
    """(plain value, whether it was dropped for the heap item cap)."""
    if value is None:
        return None, False
    if isinstance(value, str):
        return value, False
    inner = getattr(value, "value", value)
    if isinstance(inner, (bytes, bytearray)):
        return (bytes(inner), False) if len(inner) <= cap else (None, True)
    if isinstance(inner, str):
        return (inner, False) if len(inner) <= cap else (None, True)
    return None, False


def _guid(value: Value) -> str | None:
    if isinstance(value, bytes) and len(value) == 16:
        return str(uuid.UUID(bytes_le=value))
    return None


def _coded(index: Any) -> int:
    table = getattr(index, "table", None)
    if index is None or table is None or not index.row_index:
        return 0
    return int(table.number) << 24 | int(index.row_index)


def _row(row: Any, cap: int, issues: list[Issue], scope: str) -> Row:
    s = row.struct
    values: dict[str, Value] = {}
    cls = type(row)
    for raw, name in getattr(cls, "_struct_asis", {}).items():
        values[name] = int(getattr(s, raw))
    for attr in ("_struct_flags", "_struct_enums"):
        for raw, (name, _kind) in getattr(cls, attr, {}).items():
            values[name] = int(getattr(s, raw))
    for attr in ("_struct_strings", "_struct_guids", "_struct_blobs"):
        for _raw, name in getattr(cls, attr, {}).items():
            value, dropped = _heap_value(getattr(row, name, None), cap)
            if dropped:
                issues.append(Issue(code="resource-limit", scope=f"{scope}.{name}", offset=None,
                                    detail=f"heap item above max_heap_item_bytes={cap} was not decoded"))  # fmt: skip
            values[name] = _guid(value) if attr == "_struct_guids" else value
    for _raw, (name, _kind) in getattr(cls, "_struct_codedindexes", {}).items():
        values[name] = _coded(getattr(row, name, None))
    for raw, (name, _table) in getattr(cls, "_struct_indexes", {}).items():
        values[name] = int(getattr(s, raw))
    for raw, (name, _table) in getattr(cls, "_struct_lists", {}).items():
        values[name] = int(getattr(s, raw))
        values[name + "_count"] = len(getattr(row, name, None) or ())
    return Row(index=0, offset=int(s.get_file_offset()), values=values)


def _tables(net: Any, limits: ManagedLimits, issues: list[Issue]) -> dict[str, Table]:
    out: dict[str, Table] = {}
    for table in net.mdtables.tables_list or ():
        declared = int(table.num_rows or 0)
        keep = min(declared, limits.max_table_rows)
        if declared > keep:
            issues.append(Issue(code="resource-limit", scope=f"#~/{table.name}", offset=None,
                                detail=f"{declared} rows declared; the first max_table_rows={keep} were read"))  # fmt: skip
        rows: list[Row] = []
        for index in range(keep):
            try:
                parsed = _row(table.rows[index], limits.max_heap_item_bytes, issues, f"{table.name}[{index + 1}]")
            except Exception as exc:  # a row dnfile cannot read: the rest of the table is unreadable too
                issues.append(Issue(code="invalid-row", scope=f"#~/{table.name}[{index + 1}]", offset=None,
                                    detail=f"row could not be read: {type(exc).__name__}: {exc}"))  # fmt: skip
                break
            rows.append(Row(index=index + 1, offset=parsed.offset, values=parsed.values))
        out[table.name] = Table(name=table.name, number=int(table.number), declared_rows=declared, rows=tuple(rows))
    return out


def _cli(pe: Any, net: Any) -> CliFacts:
    s = net.struct
    signature = b""
    if s.ManagedNativeHeaderRva:
        try:
            signature = pe.get_data(s.ManagedNativeHeaderRva, 4)
        except Exception:
            signature = b""
    return CliFacts(
        header_offset=int(s.get_file_offset()),
        cb=int(s.cb),
        flags=int(s.Flags),
        entry_point=int(s.EntryPointTokenOrRva),
        metadata_rva=int(s.MetaDataRva),
        metadata_size=int(s.MetaDataSize),
        resources_rva=int(s.ResourcesRva),
        resources_size=int(s.ResourcesSize),
        strong_name_rva=int(s.StrongNameSignatureRva),
        strong_name_size=int(s.StrongNameSignatureSize),
        native_header_rva=int(s.ManagedNativeHeaderRva),
        native_header_size=int(s.ManagedNativeHeaderSize),
        ready_to_run_signature=signature == RTR_SIGNATURE,
        vtable_fixups_size=int(s.VTableFixupsSize),
        export_jumps_size=int(s.ExportAddressTableJumpsSize),
        **_strong_name(pe, int(s.StrongNameSignatureRva), int(s.StrongNameSignatureSize)),
    )


STRONG_NAME_HASHES = ("sha1", "sha256", "sha384", "sha512")


def _strong_name(pe: Any, rva: int, size: int) -> dict[str, Any]:
    """The signature blob and the strong-name image digests (ECMA-335 II.6.2.1.3, as the CLR and mono hash it):
    the headers through the section table with the checksum and certificate-table entry zeroed, then each
    section's raw data without the signature blob (the certificate table lies outside the sections)."""
    if not rva or not size:
        return {}
    try:
        data = bytearray(pe.__data__)
        blob_at = pe.get_offset_from_rva(rva)
        blob = bytes(data[blob_at : blob_at + size])
        checksum_at = pe.OPTIONAL_HEADER.get_file_offset() + 64
        security_at = pe.OPTIONAL_HEADER.DATA_DIRECTORY[4].get_file_offset()
        data[checksum_at : checksum_at + 4] = bytes(4)
        data[security_at : security_at + 8] = bytes(8)
        spans = [(0, pe.sections[-1].get_file_offset() + 40)] + [
            (sec.PointerToRawData, sec.PointerToRawData + sec.SizeOfRawData) for sec in pe.sections
        ]
        hashers = [hashlib.new(name) for name in STRONG_NAME_HASHES]
        for lo, hi in spans:
            parts = [(lo, hi)] if not lo <= blob_at < hi else [(lo, blob_at), (blob_at + size, hi)]
            for a, b in parts:
                for h in hashers:
                    h.update(data[a:b])
    except Exception:  # a damaged layout: the signature cannot be checked, which the pure side reports
        return {}
    if len(blob) != size:
        return {}
    return {
        "strong_name_signature": blob,
        "strong_name_digests": tuple((n, h.digest()) for n, h in zip(STRONG_NAME_HASHES, hashers, strict=True)),
    }


def _resources(pe: Any, cli: CliFacts, tables: dict[str, Table], issues: list[Issue]) -> tuple[ResourceData, ...]:
    found = tables.get("ManifestResource")
    out: list[ResourceData] = []
    for row in found.rows if found else ():
        if row.values.get("Implementation"):
            out.append(ResourceData(row=row.index, length=None, sha256=None))
            continue
        offset = row.values.get("Offset")
        rva = cli.resources_rva + (offset if isinstance(offset, int) else 0)
        try:
            length = int.from_bytes(pe.get_data(rva, 4), "little")
            if cli.resources_rva == 0 or 4 + (offset or 0) + length > cli.resources_size:  # type: ignore[operator]
                raise ValueError(f"{length} bytes at resource offset {offset!s} run past the resources directory")
            data = pe.get_data(rva + 4, length)
            if len(data) != length:
                raise ValueError("the resource runs past the end of the file")
        except Exception as exc:
            issues.append(Issue(code="invalid-resource", scope=f"ManifestResource[{row.index}]", offset=None,
                                detail=f"embedded resource unreadable: {exc}"))  # fmt: skip
            out.append(ResourceData(row=row.index, length=None, sha256=None))
            continue
        out.append(ResourceData(row=row.index, length=length, sha256=hashlib.sha256(data).hexdigest()))
    return tuple(out)


def _body(data: bytes, pe: Any, row: Row, limits: ManagedLimits) -> Body:
    rva = int(row.values.get("Rva") or 0)
    try:
        offset = pe.get_offset_from_rva(rva)
    except Exception:
        offset = None
    empty = dict(max_stack=None, init_locals=None, local_var_sig_token=None, il_size=0, il_sha256=None,
                 instructions=(), instruction_total=0, regions=())  # fmt: skip
    if offset is None or offset >= len(data):
        return Body(method_row=row.index, rva=rva, file_offset=None, header_format="unknown",
                    issue=f"body RVA 0x{rva:x} points outside the file", **empty)  # type: ignore[arg-type]  # fmt: skip
    window = data[offset : offset + limits.max_method_body_bytes]
    try:
        got = cil.decode(window, limits.max_method_instructions)
    except (cil.BodyError, struct.error) as exc:
        return Body(method_row=row.index, rva=rva, file_offset=offset, header_format="unknown",
                    issue=f"method body malformed within {len(window)} bytes: {exc}", **empty)  # type: ignore[arg-type]  # fmt: skip
    return Body(
        method_row=row.index, rva=rva, file_offset=offset, header_format=got.header_format, max_stack=got.max_stack,
        init_locals=got.init_locals, local_var_sig_token=got.local_var_sig_token, il_size=got.il_size,
        il_sha256=got.il_sha256, instructions=got.instructions, instruction_total=got.instruction_total,
        regions=got.regions, issue=None,
    )  # fmt: skip


def _bodies(data: bytes, pe: Any, tables: dict[str, Table], limits: ManagedLimits) -> Iterator[Body]:
    methods = tables.get("MethodDef")
    for row in methods.rows if methods else ():
        rva = row.values.get("Rva")
        impl = row.values.get("ImplFlags")
        if isinstance(rva, int) and rva and isinstance(impl, int) and impl & 0x3 == 0:
            yield _body(data, pe, row, limits)


def _exports(pe: Any) -> tuple[str, ...]:
    directory = getattr(pe, "DIRECTORY_ENTRY_EXPORT", None)
    if directory is None:
        return ()
    return tuple(s.name.decode("utf-8", "replace") if s.name else f"#{s.ordinal}" for s in directory.symbols[:10000])


def _pe_header(pe: Any) -> PeHeader:
    return PeHeader(
        machine=int(pe.FILE_HEADER.Machine),
        magic=int(pe.OPTIONAL_HEADER.Magic),
        section_count=int(pe.FILE_HEADER.NumberOfSections),
        characteristics=int(pe.FILE_HEADER.Characteristics),
        exports=_exports(pe),
    )


def _warnings(pe: Any) -> list[Issue]:
    """dnfile's own warnings about the metadata (the byte-distribution hint is not one)."""
    return [
        Issue(code="invalid-stream", scope="metadata", offset=None, detail=str(w))
        for w in pe.get_warnings()
        if "makes up" not in str(w)
    ]


def read_assembly(effect: ReadManagedAssembly) -> Result[AssemblyFacts, ReaError]:
    return _read_file(effect.path, effect.limits).bind(lambda data: _parsed(effect, data))


def _parsed(effect: ReadManagedAssembly, data: bytes) -> Result[AssemblyFacts, ReaError]:
    """The facts of a file's bytes; damage at any depth is a canonical error, never a crash."""
    import dnfile

    if not data.startswith(b"MZ"):
        return Failure(_unreadable(effect.path, "it is not a PE file (no MZ header)", code="invalid_request"))
    try:
        pe = dnfile.dnPE(data=data, fast_load=True, clr_lazy_load=True)  # type: ignore[no-untyped-call]  # dnfile is unannotated
        pe.parse_data_directories()  # type: ignore[no-untyped-call]  # dnfile is unannotated
    except Exception as exc:
        return Failure(_unreadable(effect.path, f"its PE headers are malformed ({exc})", code="invalid_request"))
    try:
        return Success(_facts(effect, data, pe))
    except Exception as exc:  # damage dnfile did not anticipate: canonical, never a crash
        return Failure(
            _unreadable(
                effect.path, f"its CLI metadata is malformed ({type(exc).__name__}: {exc})", code="invalid_request"
            )  # fmt: skip
        )


def _facts(effect: ReadManagedAssembly, data: bytes, pe: Any) -> AssemblyFacts:
    issues: list[Issue] = []
    net: Any = getattr(pe, "net", None)  # dnfile is unannotated
    cli = _cli(pe, net) if net is not None else None
    tables: dict[str, Table] = {}
    streams: tuple[str, ...] = ()
    version: str | None = None
    metadata = net is not None and net.metadata is not None
    if metadata:
        streams = tuple(s.struct.Name.decode("latin-1").rstrip("\x00") for s in net.metadata.streams_list)
        raw_version = net.metadata.struct.Version
        version = raw_version.decode("utf-8", "replace").rstrip("\x00") if isinstance(raw_version, bytes) else None
    if metadata and cli is not None and cli.metadata_size > effect.limits.max_metadata_bytes:
        issues.append(Issue(code="resource-limit", scope="metadata", offset=None,
                            detail=f"metadata root of {cli.metadata_size} bytes is above max_metadata_bytes="
                                   f"{effect.limits.max_metadata_bytes}; tables were not read"))  # fmt: skip
    elif metadata and net.mdtables is not None:
        tables = _tables(net, effect.limits, issues)
    elif metadata:
        issues.append(Issue(code="missing-stream", scope="#~", offset=None, detail="no metadata tables stream"))
    issues.extend(_warnings(pe))
    resources = _resources(pe, cli, tables, issues) if cli is not None else ()
    bodies = tuple(_bodies(data, pe, tables, effect.limits)) if effect.bodies else ()
    return AssemblyFacts(
        path=effect.path,
        size=len(data),
        sha256=hashlib.sha256(data).hexdigest(),
        pe=_pe_header(pe),
        cli=cli,
        metadata_version=version,
        metadata_present=metadata,
        streams=streams,
        tables=tables,
        resources=resources,
        bodies=bodies,
        issues=tuple(issues),
        pdb=read_companion(effect.path, effect.limits),
        codeview=_codeview(pe),
    )


def _codeview(pe: Any) -> CodeView | None:
    """The RSDS record of the debug directory (the PDB id the compiler wrote), None without one."""
    for entry in getattr(pe, "DIRECTORY_ENTRY_DEBUG", None) or ():
        cv = getattr(entry, "entry", None)
        if cv is None or getattr(cv, "CvSignature", None) != b"RSDS":
            continue
        try:
            raw = struct.pack("<IHH", cv.Signature_Data1, cv.Signature_Data2, cv.Signature_Data3) + bytes(
                cv.Signature_Data4
            )
            name = cv.PdbFileName.rstrip(b"\0").decode("utf-8", "replace")
            return CodeView(guid=str(uuid.UUID(bytes_le=raw)), age=int(cv.Age), path=name)
        except (AttributeError, TypeError, ValueError, struct.error):
            return None
    return None


async def read(effect: ReadManagedAssembly, progress: Progress) -> Result[AssemblyFacts, ReaError]:
    await progress.report("reading managed metadata", effect.path)
    return await anyio.to_thread.run_sync(read_assembly, effect, abandon_on_cancel=True)


HANDLERS = {ReadManagedAssembly: read}
