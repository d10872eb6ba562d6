"""From reader facts to the inspect_binary_layout result: every meaning decided here, from recorded fields only.

The reader reports numbers, names and locations; this module decides what they
mean (entry, symbol values, relocation targets, file backing, permissions) and
which hardening the headers indicate, and says what was not seen. The result is
built as the wire records of rea.layout.records; it becomes JSON only at the edge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from rea.layout import names as n
from rea.layout import records as r
from rea.layout.hextext import hx, opt_hex
from rea.layout.mitigations import mitigations

Row = Mapping[str, Any]


def rng(pair: Sequence[int]) -> r.Range:
    return r.Range(offset=hx(pair[0]), bytes=hx(pair[1]))


def name(row: Row) -> r.Name:
    loc = row["location"]
    return r.Name(
        display=row["display"],
        bytes_base64=row["bytes"],
        location=None if loc is None else rng(loc),
        unknown_reason=row["unknown_reason"],
    )


# ------------------------------------------------------------------ sections


def _section_type(fmt: str, value: Any) -> str | int:
    return n.named(n.SHT, value) if fmt == "elf" and isinstance(value, int) else value


def _section(fmt: str, row: Row) -> r.Section:
    backed = not row["nobits"] and not (fmt == "elf" and row["type"] == n.SHT_NULL)
    return r.Section(
        index=row["index"],
        name=name(row["name"]),
        name_offset=opt_hex(row["name_offset"]),
        type=_section_type(fmt, row["type"]),
        header_location=rng(row["header_location"]),
        address=hx(row["address"]),
        offset=hx(row["offset"]),
        size=hx(row["size"]),
        alignment=hx(row["alignment"]),
        flags=hx(row["flags"]),
        link=row["link"],
        info=row["info"],
        entry_size=opt_hex(row["entry_size"]),
        file_backing="file" if backed else "none",
        segment=row["segment"],
        raw_size=opt_hex(row["raw_size"]),
    )


# ------------------------------------------------------------------ segments


def _permissions(fmt: str, row: Row) -> r.Permissions | None:
    if fmt == "elf":
        if row["type"] == n.PT_NULL:
            return None
        f = row["flags"]
        return r.Permissions(read=bool(f & n.PF_R), write=bool(f & n.PF_W), execute=bool(f & n.PF_X))
    f = row["flags"]  # VM_PROT_READ 1, WRITE 2, EXECUTE 4
    return r.Permissions(read=bool(f & 1), write=bool(f & 2), execute=bool(f & 4))


def _segment(fmt: str, row: Row) -> r.Segment:
    has_bytes = row["file_size"] != 0 and not (fmt == "elf" and row["type"] == n.PT_NULL)
    return r.Segment(
        index=row["index"],
        type=n.named(n.PT, row["type"]) if fmt == "elf" else row["type"],
        name=row["name"],
        header_location=rng(row["header_location"]),
        offset=hx(row["offset"]),
        file_size=hx(row["file_size"]),
        memory_size=hx(row["memory_size"]),
        virtual_address=hx(row["virtual_address"]),
        physical_address=hx(row["physical_address"]),
        alignment=hx(row["alignment"]),
        flags=hx(row["flags"]),
        file_backing="file" if has_bytes else "none",
        permissions=_permissions(fmt, row),
    )


# ------------------------------------------------------------------- symbols


def _elf_value_meaning(row: Row, image_type: str, section_count: int) -> r.ValueMeaning:
    shndx = row["section_index"]
    if row["type"] == n.STT_FILE:
        return "no-address"
    if shndx == n.SHN_UNDEF:
        return "undefined"
    if shndx == n.SHN_COMMON:
        return "alignment"
    if shndx == n.SHN_ABS:
        return "absolute-value"
    if shndx >= n.SHN_LORESERVE or shndx >= section_count:
        return "unknown-section-index"
    if row["type"] == n.STT_TLS:
        return "tls-offset"
    return "section-offset" if image_type == "ET_REL" else "linked-virtual-address"


def _macho_value_meaning(row: Row, image_type: str) -> r.ValueMeaning:
    ntype = row["type"]
    if ntype & 0xE0:  # N_STAB debugging entry
        return "no-address"
    kind = ntype & 0x0E
    if kind in (0x0, 0xC):  # N_UNDF, N_PBUD
        return "alignment" if kind == 0 and row["value"] and ntype & 0x01 else "undefined"
    if kind == 0x2:
        return "absolute-value"
    if kind == 0xE:
        return "linked-virtual-address" if image_type != "MH_OBJECT" else "section-offset"
    return "no-address"  # N_INDR


def _pe_value_meaning(row: Row, section_count: int) -> r.ValueMeaning:
    number = row["pe_section_number"]
    if number == 0:
        return "alignment" if row["value"] else "undefined"
    if number == n.IMAGE_SYM_ABSOLUTE:
        return "absolute-value"
    if number == n.IMAGE_SYM_DEBUG:
        return "no-address"
    return "section-offset" if 0 < number <= section_count else "unknown-section-index"


def _symbol(fmt: str, row: Row, image_type: str, section_count: int) -> r.Symbol:
    if fmt == "elf":
        meaning = _elf_value_meaning(row, image_type, section_count)
        binding, kind = n.named(n.STB, row["binding"]), n.named(n.STT, row["type"])
        visibility, section = n.named(n.STV, row["visibility"]), n.named(n.SHN, row["section_index"])
    elif fmt == "macho":
        meaning = _macho_value_meaning(row, image_type)
        binding, kind, visibility, section = row["binding"], row["type"], row["visibility"], row["section_index"]
    else:
        meaning = _pe_value_meaning(row, section_count)
        binding, kind, visibility, section = row["binding"], row["type"], row["visibility"], row["section_index"]
    return r.Symbol(
        table_index=row["table_index"],
        entry_index=row["entry_index"],
        name=name(row["name"]),
        name_offset=hx(row["name_offset"]),
        location=rng(row["location"]),
        value=hx(row["value"]),
        value_meaning=meaning,
        size=hx(row["size"]),
        binding=binding,
        type=kind,
        visibility=visibility,
        section_index=section,
    )


# --------------------------------------------------------------- relocations


Target = r.SectionOffsetTarget | r.AddressTarget | r.UnknownSectionTarget


def _target(row: Row, image_type: str, sections: Sequence[Row]) -> Target:
    if image_type != "ET_REL":
        return r.AddressTarget(kind="linked-virtual-address", address=hx(row["reported_offset"]))
    info = row["owner_info"]
    if info == 0:
        reason: Literal["undefined-section-reference", "inactive-section-header"] = "undefined-section-reference"
    elif info >= len(sections) or sections[info]["type"] == n.SHT_NULL:
        reason = "inactive-section-header"
    else:
        return r.SectionOffsetTarget(kind="section-offset", section_index=info, offset=hx(row["reported_offset"]))
    return r.UnknownSectionTarget(
        kind="unknown-section",
        reported_section_index=info,
        offset=hx(row["reported_offset"]),
        unknown_reason=reason,
    )


def _relocation(row: Row, machine: int, image_type: str, sections: Sequence[Row]) -> r.Relocation:
    return r.Relocation(
        section_index=row["section_index"],
        entry_index=row["entry_index"],
        reported_offset=hx(row["reported_offset"]),
        target=_target(row, image_type, sections),
        location=rng(row["location"]),
        type=row["type"],
        type_name=n.RELOCATION_TYPES.get(machine, {}).get(row["type"]),
        symbol_table_index=row["symbol_table_index"],
        symbol_index=row["symbol_index"],
        symbol_reference_meaning="zero-symbol-value" if row["symbol_index"] == 0 else "symbol-table-entry",
        symbol_name=row["symbol_name"],
        addend=None if row["addend"] is None else str(row["addend"]),
    )


def _relr(row: Row, image_type: str) -> r.PackedRelative:
    return r.PackedRelative(
        section_index=row["section_index"],
        location=rng(row["location"]),
        encoded_bytes_base64=row["encoded"],
        entries=tuple(r.RelrEntry(decoded_index=i, reported_offset=hx(v)) for i, v in enumerate(row["entries"])),
        offset_meaning="linked-virtual-address" if image_type != "ET_REL" else "unknown",
        evidence_kind="derived",
        entry_source_locations=None,
        addends=None,
    )


# ------------------------------------------------------------------- linkage


def _got_plt(facts: Row) -> tuple[tuple[r.LinkedEntry, ...], tuple[r.LinkedEntry, ...]]:
    """GOT slots of JUMP_SLOT/GLOB_DAT entries; x86-64 PLT stubs in JUMP_SLOT order (.plt.sec, else .plt + 16)."""
    machine = facts["machine_number"]
    slots = (n.JUMP_SLOT.get(machine), n.GLOB_DAT.get(machine))
    got = tuple(
        r.LinkedEntry(display_name=row["symbol_name"] or "", address=hx(row["reported_offset"]))
        for row in facts["relocations"]
        if row["type"] in slots and slots[0] is not None
    )
    plt: tuple[r.LinkedEntry, ...] = ()
    if machine == n.EM_X86_64 and facts["image_type"] != "ET_REL":
        by_name = {s["name"]["display"]: s for s in facts["sections"]}
        stubs, first = (by_name.get(".plt.sec"), 0) if ".plt.sec" in by_name else (by_name.get(".plt"), 1)
        jumps = [row for row in facts["relocations"] if row["type"] == slots[0]]
        if stubs is not None:
            plt = tuple(
                r.LinkedEntry(display_name=row["symbol_name"] or "", address=hx(stubs["address"] + 16 * (i + first)))
                for i, row in enumerate(jumps)
            )
    return got, plt


def _import_slot(slot: Row) -> r.ImportSlot:
    return r.ImportSlot(
        library=slot["library"], name=slot["name"], ordinal=slot["ordinal"], address=hx(slot["address"])
    )


def _linkage(facts: Row) -> r.Linkage:
    got, plt = _got_plt(facts) if facts["format"] == "elf" else ((), ())
    return r.Linkage(
        needed_libraries=tuple(name(x) for x in facts["needed"]),
        interpreters=tuple(name(x) for x in facts["interpreters"]),
        got=got,
        plt=plt,
        convenience_maps_completeness="unknown",
        runtime_library_paths=None,
        library_search_paths=tuple(facts["search_paths"]),
        import_slots=tuple(_import_slot(s) for s in facts["import_slots"]),
    )


# ---------------------------------------------------------------- the result


_ENTRY_MEANINGS: Mapping[str, r.EntryMeaning] = {
    "elf": "linked-virtual-address",
    "pe": "relative-virtual-address",
    "macho-main": "file-offset",
}


def _entry(facts: Row) -> r.EntryPoint:
    kind, value, image = facts["entry_kind"], facts["entry"], facts["image_type"]
    meaning: r.EntryMeaning
    if image in ("ET_REL", "MH_OBJECT"):
        meaning = "not-applicable"
    elif kind == "none" or value == 0:
        meaning = "absent"
    else:
        meaning = _ENTRY_MEANINGS.get(kind, "linked-virtual-address")
    return r.EntryPoint(reported_value=hx(value), meaning=meaning, execution_status="unknown")


def _count(returned: int, total: int) -> r.CollectionCount:
    return r.CollectionCount(returned=returned, total=total, exhaustive=returned >= total)


_TABLE_NOTES = {
    "absent": "The section header table is absent (e_shoff or e_shnum is zero, as after stripping section "
    "headers): sections, symbol tables and REL/RELA tables are located through section headers, so none are "
    "reported; segments still are.",
    "malformed": "The section header table lies outside the file or has a short entry size: it was not read, "
    "so sections, symbol tables and REL/RELA tables are not reported (nothing is guessed).",
}


def _limitations(facts: Row, coverage: r.LayoutCoverage) -> tuple[str, ...]:
    notes = list(facts["limitations"])
    if facts["section_table"] in _TABLE_NOTES:
        notes.append(_TABLE_NOTES[facts["section_table"]])
    for key, c in (("symbols", coverage.symbols), ("relocations", coverage.relocations)):
        if not c.exhaustive:
            notes.append(f"{c.total - c.returned} of {c.total} {key} were not returned (max_{key} cap).")
    if facts["format"] == "pe":
        notes.append("PE images have no program headers: segments is empty; sections carry the mapping.")
    if facts["format"] != "elf":
        notes.append(
            "relocations and packed_relative_relocations hold ELF tables; this image's base relocations or fixups "
            "are in image_relocations."
        )
    notes.append("GOT/PLT and import maps are derived from relocation and import tables, not exhaustive.")
    return tuple(notes)


PAGE = 0xFFF


def _fixup(row: Row) -> r.ImageRelocation:
    return r.ImageRelocation(
        kind=row["kind"],
        address=hx(row["address"]),
        type=row["type"],
        symbol_name=row["symbol_name"],
        library=row["library"],
    )


def _image_relocations(rows: Sequence[Row]) -> tuple[r.ImageRelocation, ...]:
    """Mach-O fixups one row each; PE base relocations one row per run of a 4 KiB block and type.

    A 32-bit DLL relocates every absolute address it holds (3,215 HIGHLOW entries in a
    94 KB DLL): a row each cost 116 bytes and made a 385 KB reply. A block row keeps
    every relocation, as the page RVA and each entry's 12-bit offset in it.
    """
    out: list[r.ImageRelocation | tuple[int, str, list[int]]] = []  # a fixup, or an open block (page, type, offsets)
    for row in rows:
        if row["kind"] != "pe-base-relocation":
            out.append(_fixup(row))
            continue
        page, last = row["address"] & ~PAGE, out[-1] if out else None
        if isinstance(last, tuple) and last[0] == page and last[1] == row["type"]:
            last[2].append(row["address"] & PAGE)
            continue
        out.append((page, row["type"], [row["address"] & PAGE]))
    return tuple(
        r.ImageRelocation(
            kind="pe-base-relocation-block",
            address=hx(item[0]),
            type=item[1],
            symbol_name=None,
            library=None,
            offsets=tuple(item[2]),
        )
        if isinstance(item, tuple)
        else item
        for item in out
    )


def _export(entry: Row) -> r.PeExport:
    return r.PeExport(
        ordinal=entry["ordinal"],
        name=entry["name"],
        rva=hx(entry["rva"]),
        kind="forwarder" if entry["forwarder"] is not None else "export",
        forwarder=entry["forwarder"],
    )


def _export_directory(found: Row | None) -> r.PeExportDirectory | None:
    if found is None:
        return None
    return r.PeExportDirectory(
        dll_name=found["dll_name"],
        ordinal_base=found["ordinal_base"],
        timestamp=found["timestamp"],
        directory_rva=hx(found["directory_rva"]),
        directory_size=hx(found["directory_size"]),
        address_table_rva=hx(found["address_table_rva"]),
        name_table_rva=hx(found["name_table_rva"]),
        ordinal_table_rva=hx(found["ordinal_table_rva"]),
        address_table_entries=found["address_table_entries"],
        name_table_entries=found["name_table_entries"],
        entries=tuple(_export(e) for e in found["entries"]),
    )


def _import_dll(dll: Row) -> r.PeImportDll:
    return r.PeImportDll(
        library=dll["library"],
        lookup_table_rva=hx(dll["lookup_table_rva"]),
        address_table_rva=hx(dll["address_table_rva"]),
        entries=tuple(
            r.PeImportEntry(name=e["name"], ordinal=e["ordinal"], hint=e["hint"], iat_rva=hx(e["iat_rva"]))
            for e in dll["entries"]
        ),
    )


def _pe_directories(facts: Row) -> r.PeDirectories | None:
    """PE only: the export directory (names, ordinals, forwarders, RVAs) and the import directory per DLL."""
    pe = facts["pe"]
    if pe is None or "exports" not in pe:
        return None
    return r.PeDirectories(
        exports=_export_directory(pe["exports"]), imports=tuple(_import_dll(d) for d in pe["imports"])
    )


def _coverage(facts: Row) -> r.LayoutCoverage:
    sections, image_relocations = facts["sections"], facts["image_relocations"]
    return r.LayoutCoverage(
        sections=_count(len(sections), len(sections)),
        segments=_count(len(facts["segments"]), len(facts["segments"])),
        symbols=_count(len(facts["symbols"]), facts["symbol_total"]),
        relocations=_count(
            len(facts["relocations"]) + len(image_relocations),
            facts["relocation_total"] + facts.get("image_relocation_total", len(image_relocations)),
        ),
        section_table=facts["section_table"],
    )


def layout_result(facts: Row, artifact: Row, caps: Row) -> r.BinaryLayout:
    """The complete normalized_result of inspect_binary_layout."""
    fmt, image_type = facts["format"], facts["image_type"]
    sections = facts["sections"]
    coverage = _coverage(facts)
    return r.BinaryLayout(
        artifact=r.LayoutArtifact(path=artifact["path"], sha256=artifact["sha256"], bytes=artifact["bytes"]),
        format=fmt,
        architecture=r.Architecture(machine=str(facts["machine"]), bits=facts["bits"], byte_order=facts["byte_order"]),
        image_type=image_type,
        entry_point=_entry(facts),
        runtime_load_base=None,
        sections=tuple(_section(fmt, s) for s in sections),
        segments=tuple(_segment(fmt, s) for s in facts["segments"]),
        symbols=tuple(_symbol(fmt, s, image_type, len(sections)) for s in facts["symbols"]),
        relocations=tuple(
            _relocation(row, facts["machine_number"], image_type, sections) for row in facts["relocations"]
        ),
        packed_relative_relocations=tuple(_relr(row, image_type) for row in facts["relr"]),
        relocation_inventory_completeness="unknown",
        image_relocations=_image_relocations(facts["image_relocations"]),
        linkage=_linkage(facts),
        pe_directories=_pe_directories(facts),
        mitigations=mitigations(facts),
        diagnostics=r.Diagnostics(stdout="", stderr="", truncated=False),
        slice=facts["slice"],
        coverage=coverage,
        limitations=_limitations(facts, coverage),
    )
