"""inspect_managed_artifact: identity, classification, references, resources, attributes (pure)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import attrs

from rea.managed import common as c
from rea.managed.facts import AssemblyFacts, CliFacts, Row
from rea.managed.names import Names, hex_token, token
from rea.managed.pdb import portable_pdb
from rea.managed.records import artifact as w
from rea.managed.signatures import first_string_argument
from rea.managed.strong_name import verify

PE_ARCHITECTURES: Mapping[int, w.PeArchitecture] = {
    0x14C: "x86", 0x8664: "x86_64", 0x1C0: "arm", 0x1C2: "arm", 0x1C4: "arm", 0xAA64: "arm64",
}  # fmt: skip
CLI_FLAGS = (
    (0x1, "il-only"),
    (0x2, "32bit-required"),
    (0x4, "il-library"),
    (0x8, "strong-name-signed"),
    (0x10, "native-entry-point"),
    (0x10000, "track-debug-data"),
    (0x20000, "32bit-preferred"),
)
TARGET_FRAMEWORK = "System.Runtime.Versioning.TargetFrameworkAttribute"
# reference names that place an assembly in a runtime family, first match wins
RUNTIME_MARKERS: tuple[tuple[str, w.RuntimeFamily], ...] = (
    ("UnityEngine", "unity-mono"),
    ("UnityEngine.CoreModule", "unity-mono"),
    ("System.Runtime", "modern-dotnet"),
    ("System.Private.CoreLib", "modern-dotnet"),
    ("netstandard", "modern-dotnet"),
    ("mscorlib", "dotnet-framework"),
)


def _version(row: Row) -> str:
    parts = ("MajorVersion", "MinorVersion", "BuildNumber", "RevisionNumber")
    return ".".join(str(c.number(row, p)) for p in parts)


def public_key(data: bytes | None, is_full_key: bool) -> w.PublicKey:
    """A key blob and its token: the last 8 bytes of the key's SHA-1, reversed (ECMA II.6.2.1.3)."""
    if not data:
        return w.PublicKey(kind="none", byte_length=0, sha256=None, token=None)
    digest = hashlib.sha256(data).hexdigest()
    if is_full_key:
        key_token = hashlib.sha1(data, usedforsecurity=False).digest()[-8:][::-1].hex()
        return w.PublicKey(kind="public-key", byte_length=len(data), sha256=digest, token=key_token)
    if len(data) == 8:
        return w.PublicKey(kind="public-key-token", byte_length=8, sha256=digest, token=data.hex())
    return w.PublicKey(kind="public-key", byte_length=len(data), sha256=digest, token=None)


def _culture(row: Row) -> str | None:
    return c.text(row, "Culture") or None


def _assembly_key(facts: AssemblyFacts) -> bytes | None:
    rows = facts.rows("Assembly")
    return c.blob(rows[0], "PublicKey") if rows else None


def assembly_identity(facts: AssemblyFacts) -> w.AssemblyIdentity | None:
    rows = facts.rows("Assembly")
    if not rows:
        return None
    row = rows[0]
    flags = c.number(row, "Flags")
    return w.AssemblyIdentity(
        name=c.text(row, "Name"),
        version=_version(row),
        culture=_culture(row),
        flags=flags,
        hash_algorithm=c.number(row, "HashAlgId"),
        public_key=public_key(c.blob(row, "PublicKey"), True),
        token=token("Assembly", row.index),
        row_offset=row.offset,
    )


def references(facts: AssemblyFacts) -> tuple[w.AssemblyReference, ...]:
    out = []
    for row in facts.rows("AssemblyRef"):
        hash_value = c.blob(row, "HashValue") or b""
        flags = c.number(row, "Flags")
        out.append(
            w.AssemblyReference(
                name=c.text(row, "Name"),
                version=_version(row),
                culture=_culture(row),
                flags=flags,
                public_key_or_token=public_key(c.blob(row, "PublicKey"), bool(flags & 1)),
                hash_value_sha256=hashlib.sha256(hash_value).hexdigest() if hash_value else None,
                hash_value_length=len(hash_value),
                token=token("AssemblyRef", row.index),
                row_offset=row.offset,
            )
        )
    return tuple(out)


def resources(facts: AssemblyFacts) -> tuple[w.ManagedResource, ...]:
    data = {r.row: r for r in facts.resources}
    out = []
    for row in facts.rows("ManifestResource"):
        flags = c.number(row, "Flags")
        implementation = c.number(row, "Implementation")
        found = data.get(row.index)
        out.append(
            w.ManagedResource(
                name=c.text(row, "Name"),
                flags=flags,
                visibility={1: "public", 2: "private"}.get(flags & 0x7, "unknown"),  # type: ignore[arg-type]
                implementation_token=hex_token(implementation) if implementation else None,
                embedded=not implementation,
                declared_offset=c.number(row, "Offset"),
                data_length=found.length if found else None,
                data_sha256=found.sha256 if found else None,
                token=token("ManifestResource", row.index),
                row_offset=row.offset,
            )
        )
    return tuple(out)


def _constructor_blob(names: Names, value: int) -> bytes | None:
    table, row = value >> 24, value & 0xFFFFFF
    source = names.methods.get(row) if table == 0x06 else names.memberrefs.get(row) if table == 0x0A else None
    return c.blob(source, "Signature")


def attributes(facts: AssemblyFacts, names: Names) -> tuple[w.CustomAttribute, ...]:
    out = []
    for row in facts.rows("CustomAttribute"):
        ctor = c.number(row, "Type")
        value = c.blob(row, "Value") or b""
        out.append(
            w.CustomAttribute(
                parent_token=hex_token(c.number(row, "Parent")),
                constructor_token=hex_token(ctor) if ctor else None,
                type_name=names.declaring_type(ctor) if ctor else None,
                value_length=len(value),
                value_sha256=hashlib.sha256(value).hexdigest(),
                decoded_fixed_string=first_string_argument(value, _constructor_blob(names, ctor)),
                token=token("CustomAttribute", row.index),
                row_offset=row.offset,
            )
        )
    return tuple(out)


def _verification(cli: CliFacts, public_key_blob: bytes | None) -> w.StrongNameVerification:
    state, detail = verify(cli, public_key_blob)
    return w.StrongNameVerification(state=state, detail=detail)


def cli_header(cli: CliFacts, version: str | None, public_key_blob: bytes | None) -> w.CliHeader:
    flag_names = tuple(name for bit, name in CLI_FLAGS if cli.flags & bit)
    if cli.flags & 0x10:
        entry = w.EntryPoint(kind="native-rva", value=f"0x{cli.entry_point:x}")
    elif cli.entry_point:
        entry = w.EntryPoint(kind="metadata-token", value=hex_token(cli.entry_point))
    else:
        entry = w.EntryPoint(kind="none", value=None)
    return w.CliHeader(
        header_offset=cli.header_offset, header_size=max(cli.cb, 72), runtime_version=version or "",
        flags=cli.flags, flag_names=flag_names, entry_point=entry, metadata_rva=max(cli.metadata_rva, 1),
        metadata_size=max(cli.metadata_size, 1), resources_rva=cli.resources_rva, resources_size=cli.resources_size,
        strong_name_rva=cli.strong_name_rva, strong_name_size=cli.strong_name_size,
        managed_native_header_rva=cli.native_header_rva, managed_native_header_size=cli.native_header_size,
        ready_to_run_signature=cli.ready_to_run_signature,
        strong_name_verification=_verification(cli, public_key_blob),
    )  # fmt: skip


def pe_facts(facts: AssemblyFacts, architecture: w.PeArchitecture) -> w.PeFacts:
    pe = facts.pe
    assert pe is not None
    return w.PeFacts(
        machine=pe.machine,
        machine_hex=f"0x{pe.machine:04x}",
        architecture=architecture,
        optional_header="pe32-plus" if pe.magic == 0x20B else "pe32",
        section_count=max(min(pe.section_count, 0xFFFF), 1),
        characteristics=pe.characteristics,
        cli=cli_header(facts.cli, facts.metadata_version, _assembly_key(facts)) if facts.cli is not None else None,
    )


# core libraries reference nothing: their own name places them
CORE_LIBRARIES: Mapping[str, w.RuntimeFamily] = {
    "mscorlib": "dotnet-framework",
    "System.Private.CoreLib": "modern-dotnet",
}


def _runtime(
    refs: tuple[w.AssemblyReference, ...], frameworks: tuple[str, ...], mixed: bool, name: str | None
) -> w.RuntimeFamily:
    if mixed:
        return "mixed-clr-native"
    if any(f.startswith(".NETCoreApp") or f.startswith(".NETStandard") for f in frameworks):
        return "modern-dotnet"
    if any(f.startswith(".NETFramework") for f in frameworks):
        return "dotnet-framework"
    names = {r.name for r in refs}
    found = next((family for marker, family in RUNTIME_MARKERS if marker in names), None)
    return found or CORE_LIBRARIES.get(name or "", "unknown")


def _implementation(facts: AssemblyFacts) -> w.Implementation:
    cli = facts.cli
    if cli is None:
        return "not-managed"
    if cli.ready_to_run_signature:
        return "cil-and-ready-to-run"
    if not cli.flags & 0x1 and (cli.vtable_fixups_size or cli.export_jumps_size or cli.flags & 0x10):
        return "cpp-cli-mixed"
    methods = facts.rows("MethodDef")
    if methods and all(not c.number(m, "Rva") for m in methods):
        return "metadata-only"
    return "cil" if facts.tables else "unknown"


def managed_architecture(cli: CliFacts | None, architecture: w.PeArchitecture) -> w.ManagedArchitecture:
    """What the CLI header flags make of the COFF machine: an IL-only x86 image that does not require 32 bits is
    AnyCPU (ECMA-335 II.25.3.3.1: ILONLY 0x1, 32BITREQUIRED 0x2, 32BITPREFERRED 0x20000)."""
    if cli is None:
        return "unknown"
    if architecture != "x86":
        return architecture
    if not cli.flags & 0x1 or cli.flags & 0x2 and not cli.flags & 0x20000:
        return "x86"
    return "anycpu-prefer-32" if cli.flags & 0x20000 else "anycpu"


def _evidence(facts: AssemblyFacts) -> tuple[w.ClassificationEvidence, ...]:
    cli = facts.cli
    if cli is None:
        return (w.ClassificationEvidence(code="no-cli-header", detail="The COM descriptor directory is empty",
                                         file_offset=None),)  # fmt: skip
    found = [
        w.ClassificationEvidence(
            code="cli-header", detail=f"CLI header cb={cli.cb} flags=0x{cli.flags:x}", file_offset=cli.header_offset
        )  # fmt: skip
    ]
    if facts.metadata_version:
        found.append(w.ClassificationEvidence(code="metadata-root", detail=f"BSJB {facts.metadata_version}",
                                              file_offset=None))  # fmt: skip
    if cli.ready_to_run_signature:
        found.append(w.ClassificationEvidence(code="ready-to-run", detail="RTR managed native header",
                                              file_offset=None))  # fmt: skip
    if cli.vtable_fixups_size or cli.export_jumps_size:
        found.append(w.ClassificationEvidence(code="native-fixups", detail="VTable fixups or export jumps present",
                                              file_offset=None))  # fmt: skip
    return tuple(found)


def _assembly_name(facts: AssemblyFacts) -> str | None:
    rows = facts.rows("Assembly")
    return c.text(rows[0], "Name") if rows else None


def classification(
    facts: AssemblyFacts, architecture: w.PeArchitecture, refs: Any, frameworks: Any
) -> w.Classification:
    implementation = _implementation(facts)
    status: Any = "not-managed" if facts.cli is None else "managed" if facts.tables else "malformed"
    return w.Classification(
        status=status,
        container="pe",
        runtime_family=_runtime(refs, frameworks, implementation == "cpp-cli-mixed", _assembly_name(facts))
        if facts.cli
        else "unknown",
        implementation=implementation,
        managed_architecture=managed_architecture(facts.cli, architecture),
        evidence=_evidence(facts),
    )


def _limitations(facts: AssemblyFacts) -> list[str]:
    """What the answer leaves out, stated as the result has it: a PDB that was read is not called unread."""
    out = [c.NO_EXECUTION]
    if facts.pdb is None:
        out.append(
            "No portable PDB was found beside the assembly (same name, .pdb); Windows (MSF) PDBs, PDBs embedded "
            "in the debug directory and .mdb files are not read."
        )
    else:
        out.append(
            "The portable PDB's Document rows and MethodDebugInformation counts are read; its sequence points, "
            "local scopes and custom debug information are not decoded."
        )
    return out


def artifact_result(facts: AssemblyFacts, architecture: w.PeArchitecture, args: w.ArtifactArgs) -> w.ArtifactResult:
    names = Names(facts)
    refs = references(facts)
    attrs_all = attributes(facts, names)
    frameworks = tuple(
        a.decoded_fixed_string for a in attrs_all if a.type_name == TARGET_FRAMEWORK and a.decoded_fixed_string
    )
    res = resources(facts)
    limitations = _limitations(facts)
    pdb = portable_pdb(facts)
    documents = pdb.documents if pdb is not None else ()
    for kind, items in (("reference", refs), ("resource", res), ("attribute", attrs_all), ("document", documents)):
        limitations += c.paging_limitations(kind, len(items), *c.window(args, kind))
    if pdb is not None:
        pdb = attrs.evolve(pdb, documents=c.page(documents, args.document_offset, args.document_limit))
    return w.ArtifactResult(
        schema_version=1,
        artifact=c.artifact_ref(facts),
        pe=pe_facts(facts, architecture),
        classification=classification(facts, architecture, refs, frameworks),
        metadata=w.Metadata(
            status=c.metadata_status(facts),
            version=facts.metadata_version,
            stream_names=facts.streams,
            table_row_counts=c.row_counts(facts),
        ),  # fmt: skip
        module=c.module_identity(facts),
        assembly=assembly_identity(facts),
        target_frameworks=frameworks,
        references=c.page(refs, args.reference_offset, args.reference_limit),
        resources=c.page(res, args.resource_offset, args.resource_limit),
        attributes=c.page(attrs_all, args.attribute_offset, args.attribute_limit),
        portable_pdb=pdb,
        coverage=c.coverage(facts),
        limitations=tuple(limitations),
    )
