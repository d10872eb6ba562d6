"""Wire records of import_managed_reconstruction: decompiler output locked to exact method identities.

Input and result follow the 3.1 schema and 6.x managedReconstruction: each method is locked by
metadata token, raw signature SHA-256 and decoded-IL tuple SHA-256 to retained inspect_managed_members
Evidence; the text is analyst inference, never an observation of the bytes.
"""

from __future__ import annotations

from typing import Any, Literal

import attrs

from rea.managed.records.artifact import GUID, SHA256, TOKEN, MetadataStatus
from rea.wire.schema import field

EVIDENCE_ID = "^ev_[a-f0-9]{64}$"
_MAX = 2**53 - 1

Family = Literal["ilspy", "dnspy", "dnlib", "mono-cecil", "other"]
Kind = Literal["decompiled-csharp", "decompiled-il", "semantic-pseudocode"]
Language = Literal["csharp", "il", "pseudocode"]


def _line(description: str, default: bool) -> Any:
    if default:
        return field(description, default=None, minimum=1, maximum=_MAX)
    return field(description, minimum=1, maximum=_MAX)


@attrs.frozen(kw_only=True)
class Decompiler:
    name: str = field("Decompiler name (ilspycmd, dnSpy, ...)", minLength=1, maxLength=512)
    version: str | None = field("Its version", default=None, minLength=1, maxLength=128)
    family: Family = field("Decompiler family")
    executable_sha256: str | None = field("Digest of the decompiler executable", default=None, pattern=SHA256)
    options: tuple[str, ...] = field(
        "Command-line options it ran with", default=(), maxItems=50, items={"type": "string", "maxLength": 512}
    )


@attrs.frozen(kw_only=True)
class ReconstructionInput:
    kind: Kind = field("What the text is")
    language: Language = field("Its language")
    text: str = field("The decompiled text of this one method", minLength=1, maxLength=65536)
    text_sha256: str | None = field("SHA-256 of the text's UTF-8 bytes, checked when given", default=None,
                                    pattern=SHA256)  # fmt: skip
    source_path: str | None = field("Where the decompiler wrote it", default=None, minLength=1, maxLength=4096)
    start_line: int | None = _line("First line in source_path", default=True)
    end_line: int | None = _line("Last line in source_path", default=True)


@attrs.frozen(kw_only=True)
class MethodLock:
    token: str = field("MethodDef token in the members Evidence", pattern=TOKEN)
    signature_sha256: str = field("That method's signature.raw_sha256", pattern=SHA256)
    normalized_il_sha256: str | None = field("That method's body.normalized_il_sha256 (null never matches)",
                                             pattern=SHA256)  # fmt: skip
    reconstruction: ReconstructionInput = field("The decompiler's output for it")


@attrs.frozen(kw_only=True)
class ReconstructionArgs:
    static_members_evidence_id: str = field("Retained inspect_managed_members Evidence", pattern=EVIDENCE_ID)
    decompiler: Decompiler = field("Which decompiler produced the text, and how")
    methods: tuple[MethodLock, ...] = field("Methods imported", minItems=1, maxItems=50)
    notes: tuple[str, ...] = field(
        "Analyst notes", default=(), maxItems=100, items={"type": "string", "minLength": 1, "maxLength": 4096}
    )


@attrs.frozen(kw_only=True)
class StaticObservation:
    evidence_id: str = field("The members Evidence", pattern=EVIDENCE_ID)
    artifact_sha256: str = field("The assembly", pattern=SHA256)
    artifact_path: str = field("Its path", minLength=1)
    byte_length: int = field("Its size", minimum=0, maximum=_MAX)
    module_name: str | None = field("Its module name")
    mvid: str | None = field("Its module version id", pattern=GUID)
    metadata_status: MetadataStatus = field("Its metadata status")


@attrs.frozen(kw_only=True)
class DecompilerRecord:
    name: str = field("Decompiler name", minLength=1)
    version: str | None = field("Its version")
    family: Family = field("Decompiler family")
    executable_sha256: str | None = field("Digest of its executable", pattern=SHA256)
    options: tuple[str, ...] = field("Options it ran with")
    options_sha256: str = field("Canonical SHA-256 of the options", pattern=SHA256)


@attrs.frozen(kw_only=True)
class Reconstruction:
    kind: Kind = field("What the text is")
    language: Language = field("Its language")
    text: str = field("The text", minLength=1)
    text_sha256: str = field("SHA-256 of its UTF-8 bytes", pattern=SHA256)
    text_length: int = field("Characters (UTF-16 units, as 6.x counts)", minimum=1, maximum=_MAX)
    line_count: int = field("Lines", minimum=1, maximum=_MAX)
    source_path: str | None = field("Where the decompiler wrote it")
    start_line: int | None = field("First line", minimum=1, maximum=_MAX)
    end_line: int | None = field("Last line", minimum=1, maximum=_MAX)


@attrs.frozen(kw_only=True)
class Validation:
    matched_static_member: Literal[True] = field("Token, signature and IL hash all matched")
    exact_build_required: Literal[True] = field("Valid for this exact build only")
    canonical_observation: Literal[False] = field("The text is not an observation of the bytes")
    confidence_floor: Literal["inference"] = field("At best analyst inference")


@attrs.frozen(kw_only=True)
class ImportedMethod:
    token: str = field("MethodDef token", pattern=TOKEN)
    declaring_type: str | None = field("Owning type")
    name: str = field("Method name")
    signature_sha256: str = field("Raw signature SHA-256", pattern=SHA256)
    normalized_il_sha256: str | None = field("Decoded-tuple IL SHA-256", pattern=SHA256)
    body_sha256: str | None = field("Raw CIL SHA-256", pattern=SHA256)
    il_size: int = field("CIL bytes", minimum=0, maximum=_MAX)
    reconstruction: Reconstruction = field("The imported text")
    validation: Validation = field("What the lock establishes")


@attrs.frozen(kw_only=True)
class ReconstructionSummary:
    imported_methods: int = field("Methods imported", minimum=1, maximum=_MAX)
    decompiled_csharp_methods: int = field("", minimum=0, maximum=_MAX)
    decompiled_il_methods: int = field("", minimum=0, maximum=_MAX)
    pseudocode_methods: int = field("", minimum=0, maximum=_MAX)
    total_text_bytes: int = field("Sum of text_length", minimum=1, maximum=_MAX)


@attrs.frozen(kw_only=True)
class ReconstructionResult:
    schema_version: Literal[1] = field("Result schema version")
    reconstruction_id: str = field("mre_ id", pattern="^mre_[a-f0-9]{64}$")
    phase: Literal["reconstruction-import"] = field("Phase")
    executed: Literal[False] = field("Nothing was run, loaded or decompiled here")
    static_observation: StaticObservation = field("The members Evidence the methods are locked to")
    decompiler: DecompilerRecord = field("The decompiler")
    summary: ReconstructionSummary = field("Counts")
    methods: tuple[ImportedMethod, ...] = field("Imported methods", minItems=1)
    notes: tuple[str, ...] = field("Analyst notes")
    evidence_links: tuple[str, ...] = field("The members Evidence", minItems=1, maxItems=1)
    limitations: tuple[str, ...] = field("What the import does not establish")
