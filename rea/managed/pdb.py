"""The portable PDB companion as the artifact result states it: documents, counts, and whether it matches.

A PDB matches its assembly when the PDB id GUID of its #Pdb stream is the GUID the assembly's CodeView
(RSDS) debug record names; an assembly without that record (mcs, or a stripped build) cannot say, and a
PDB whose MethodDef row count differs from the assembly's was built against another build.
"""

from __future__ import annotations

from rea.managed.facts import AssemblyFacts, PdbDocument, PdbFacts
from rea.managed.records import artifact as w

HASH_ALGORITHMS: dict[str, str] = {
    "ff1816ec-aa5e-4d10-87f7-6f4963833460": "sha1",
    "8829d00f-11b8-4213-878b-770e8597ac16": "sha256",
}
LANGUAGES = {
    "3f5162f8-07c6-11d3-9053-00c04fa302a1": "csharp",
    "3a12d0b8-c26c-11d0-b442-00a0244a1dd2": "visual-basic",
    "ab4f38c9-b6e6-43ba-be3b-58080b2ccce3": "fsharp",
}
METHOD_DEF = 0x06


def _document(d: PdbDocument) -> w.PdbDocumentRow:
    algorithm = "none" if d.hash_algorithm is None else HASH_ALGORITHMS.get(d.hash_algorithm, "unknown")
    return w.PdbDocumentRow(
        name=d.name, hash_algorithm=algorithm, hash_algorithm_guid=d.hash_algorithm, hash=d.hash,  # type: ignore[arg-type]
        language=LANGUAGES.get(d.language or "", d.language or "unknown"),
    )  # fmt: skip


def _match(facts: AssemblyFacts, pdb: PdbFacts) -> str:
    if pdb.pdb_guid is None:
        return "unknown"
    if facts.codeview is None:
        return "no-codeview-record"
    return "matched" if facts.codeview.guid == pdb.pdb_guid else "mismatched"


def portable_pdb(facts: AssemblyFacts) -> w.PortablePdb | None:
    pdb = facts.pdb
    if pdb is None:
        return None
    status = "unreadable" if pdb.pdb_guid is None else "partial" if pdb.issues else "read"
    return w.PortablePdb(
        path=pdb.path, byte_length=pdb.size, sha256=pdb.sha256, pdb_id=pdb.pdb_guid, pdb_stamp=pdb.pdb_stamp,
        entry_point_token=f"0x{pdb.entry_point:08x}" if pdb.entry_point else None,
        matches_assembly=_match(facts, pdb),  # type: ignore[arg-type]
        codeview_pdb_id=facts.codeview.guid if facts.codeview else None,
        referenced_method_rows=pdb.referenced_rows.get(METHOD_DEF),
        documents=tuple(_document(d) for d in pdb.documents),
        method_debug_information=w.MethodDebugCounts(rows=pdb.method_debug_rows,
                                                     with_sequence_points=pdb.with_sequence_points),
        status=status,  # type: ignore[arg-type]
        issues=pdb.issues,
    )  # fmt: skip
