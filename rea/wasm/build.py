"""From WABT's reports to the inspect_wasm_artifact result: sections, imports, exports, glue associations.

WABT's lines are kept as written (the reference's `imports`/`exports` strings);
their records (our extra) come from the module's own bytes (rea.wasm.binary), so an
import target WABT prints as `a.b.c` still has its exact module and field, and each
record carries WABT's line at the same position.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping, Sequence
from typing import Any, Literal, TypeVar

import attrs

from rea.wasm.binary import decode_module
from rea.wasm.records import (
    CustomSections,
    Glue,
    GlueReference,
    Producer,
    ProducerField,
    ProducerValue,
    TargetFeature,
    ToolProfile,
    WabtCommand,
    WasmArtifact,
    WasmExport,
    WasmFile,
    WasmImport,
    WasmSection,
    Wat,
    WatPageIndex,
)
from rea.wire.convert import CONVERTER

_SECTION = re.compile(r"^\s*(\S+) start=0x([0-9a-f]+) end=0x([0-9a-f]+) \(size=0x([0-9a-f]+)\)\s*(.*)$")
_BLOCK = re.compile(r"^(\w+)\[(\d+)\]:$")
_LITERAL = re.compile(r"""(["'`])((?:\\.|(?!\1)[^\\\n])*)\1""")
SOURCE: Literal["https://github.com/WebAssembly/wabt"] = "https://github.com/WebAssembly/wabt"
Row = Mapping[str, Any]
R = TypeVar("R", WasmImport, WasmExport)
Association = Literal["local-path-candidate", "basename-candidates", "unresolved"]


def split_report(report: str) -> tuple[str, str]:
    """wasm-objdump -h -x writes the banner and headers, then the details from a "Section Details:" line."""
    marker = report.find("\nSection Details:")
    if marker < 0:
        return report, ""
    return report[: marker + 1], report[marker + 1 :]


def sections(headers: str) -> list[WasmSection]:
    rows = []
    for line in headers.splitlines():
        m = _SECTION.match(line)
        if m:
            kind, start, end, size, rest = m.groups()
            rows.append(
                WasmSection(
                    kind=kind, start=int(start, 16), end=int(end, 16), bytes=int(size, 16), description=rest.strip()
                )
            )
    return rows


def _blocks(details: str) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in details.splitlines():
        head = _BLOCK.match(line)
        if head:
            current = found.setdefault(head.group(1), [])
            continue
        if line.endswith(":") and not line.startswith(" "):
            current = None
            continue
        if current is not None and line.startswith(" - "):
            current.append(line)
    return found


def _with_lines(records: Sequence[R], lines: Sequence[str]) -> tuple[R, ...]:
    """Records beside WABT's lines: the line at the same position (both list the entries in section order)."""
    same = len(records) == len(lines)
    return tuple(attrs.evolve(r, line=lines[n] if same else None) for n, r in enumerate(records))


_FEATURE_POLICY = {"+": "used", "-": "disallowed", "=": "required"}


def feature_records(features: Sequence[str]) -> tuple[TargetFeature, ...]:
    """target_features entries as records: the prefix byte's meaning (tool-conventions) and the feature name."""
    return tuple(
        TargetFeature(name=f[1:], prefix=f[:1], policy=_FEATURE_POLICY.get(f[:1], "unknown"))  # type: ignore[arg-type]
        for f in features
    )


def producer_records(producers: Sequence[Producer]) -> tuple[ProducerField, ...]:
    """The producers section's fields as name/values records, in the section's order."""
    grouped: dict[str, list[ProducerValue]] = {}
    for p in producers:
        grouped.setdefault(p.field_name, []).append(ProducerValue(name=p.name, version=p.version))
    return tuple(ProducerField(name=k, values=tuple(v)) for k, v in grouped.items())


def _stem(value: str) -> str:
    return posixpath.basename(value.split("?", 1)[0].split("#", 1)[0])


def glue_references(glue_path: str, text: str, candidates: Sequence[str]) -> list[GlueReference]:
    """String literals naming a .wasm resource, each associated with the candidates it may name."""
    rows = []
    base = posixpath.dirname(glue_path)
    for number, line in enumerate(text.splitlines(), start=1):
        for m in _LITERAL.finditer(line):
            value = m.group(2)
            if ".wasm" not in value:
                continue
            local = posixpath.normpath(posixpath.join(base, value.split("?", 1)[0].split("#", 1)[0]))
            exact = [c for c in candidates if "://" not in value and posixpath.normpath(c) == local]
            named = [c for c in candidates if posixpath.basename(c) == _stem(value)]
            association: Association = (
                "local-path-candidate" if exact else ("basename-candidates" if named else "unresolved")
            )
            rows.append(
                GlueReference(
                    value=value,
                    line=number,
                    column=m.start(),
                    candidate_paths=tuple(exact or named),
                    association=association,
                    evidence_kind="static-literal",
                )
            )
    return rows


def _release(commands: Sequence[WabtCommand]) -> str:
    banners = {c.version_banner.strip() for c in commands}
    return banners.pop() if len(banners) == 1 else "mixed: " + ", ".join(sorted(banners))


def _customs(customs: Row) -> CustomSections:
    """The effect's decoded custom sections, with the producers and target_features as records."""
    producers = tuple(CONVERTER.structure(p, Producer) for p in customs["producers"])
    return CustomSections(
        names=tuple(customs["names"]),
        name_section=customs["name_section"],
        producers=producers,
        target_features=tuple(customs["target_features"]),
        source_mapping_url=customs["source_mapping_url"],
        dylink=customs["dylink"],
        limitations=tuple(customs["limitations"]),
        producer_fields=producer_records(producers),
        target_feature_records=feature_records(customs["target_features"]),
    )


def _wat(wat: Row) -> Wat:
    index = wat.get("page_index")
    return Wat(
        text=wat["text"],
        sha256=wat["sha256"],
        representation="decoded-wat",
        utf16_length=wat["utf16_length"],
        utf8_bytes=wat["utf8_bytes"],
        complete=wat["complete"],
        page_index=CONVERTER.structure(index, WatPageIndex) if index else None,
    )


def _glue(facts: Row, candidate_paths: Sequence[str]) -> tuple[Glue, ...]:
    return tuple(
        Glue(
            artifact=CONVERTER.structure(g["artifact"], WasmFile),
            parse_status="complete" if g["decoded"] else "partial",
            references=tuple(glue_references(g["artifact"]["path"], g["text"], candidate_paths)),
        )
        for g in facts["glue"]
    )


def _limitations(facts: Row, customs: CustomSections, module_limits: Sequence[str]) -> tuple[str, ...]:
    wat, tables = facts["wat"], facts["tables"]
    limitations = ["The WAT is decoded from the binary by wasm2wat; it is not the module's original source."]
    if not wat["complete"]:
        limitations.append(
            f"wat.text holds the first {len(wat['text'])} characters of {wat['utf16_length']} UTF-16 units "
            "(max_wat_inline_units); wat.sha256 and wat.utf16_length cover the whole WAT"
            + (
                "; later pages are read from the compressed page cache (wat.page_index) by inspect_analysis_view."
                if wat.get("page_index")
                else "; the page cache could not be written, so later pages cannot be read."
            )
        )
    limitations += [f"custom sections: {text}" for text in customs.limitations]
    limitations += [f"module records: {text}" for text in [*tables["limitations"], *module_limits]]
    limitations += [
        f"glue {g['artifact']['path']} is not valid UTF-8: literals were scanned after replacement"
        for g in facts["glue"]
        if not g["decoded"]
    ]
    return tuple(limitations)


def wasm_result(facts: Row, timeout_ms: int, budget: int) -> WasmArtifact:
    """The complete normalized_result of inspect_wasm_artifact, structured from the effect's facts once here."""
    headers, details = split_report(facts["report"])
    blocks = _blocks(details)
    imports, exports = blocks.get("Import", []), blocks.get("Export", [])
    artifact = CONVERTER.structure(facts["artifact"], WasmFile)
    candidates = tuple(CONVERTER.structure(c, WasmFile) for c in facts["candidates"])
    commands = tuple(CONVERTER.structure(c, WabtCommand) for c in facts["commands"])
    customs = _customs(facts["customs"])
    tables = facts["tables"]
    module = decode_module(tables["payloads"], tables["counts"], tables["name"])
    return WasmArtifact(
        artifact=artifact,
        validation="valid",
        sections=tuple(sections(headers)),
        imports=tuple(imports),
        exports=tuple(exports),
        import_records=_with_lines(module.imports, imports),
        export_records=_with_lines(module.exports, exports),
        functions=module.functions,
        module_counts=attrs.evolve(module.counts, custom_sections=len(customs.names)),
        custom_sections=customs,
        headers=headers,
        details=details,
        wat=_wat(facts["wat"]),
        tool_profile=ToolProfile(
            source=SOURCE,
            release=_release(commands),
            source_commit=None,
            commands=commands,
            timeout_ms=timeout_ms,
            output_budget_bytes=budget,
        ),
        candidates=(artifact, *candidates),
        glue=_glue(facts, [c.path for c in candidates]),
        runtime_execution="not-performed",
        network_fetch="not-performed",
        limitations=_limitations(facts, customs, module.limitations),
    )
