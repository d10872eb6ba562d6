"""Decompiler output imported against retained members Evidence: every method locked, or the call refused.

A method is imported only when the members Evidence holds a MethodDef with the same token, the same
raw signature SHA-256 and a fully decoded body with the same normalized-IL SHA-256 (a partial body has
none, so it never matches). Anything else is refused as a whole, naming the method and which part of
the lock disagreed: the text would otherwise be bound to a different build or body.
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Sequence
from typing import Any

from returns.result import Failure, Result, Success

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.managed.records import reconstruction as w
from rea.managed.retained_results import StoredMembers, StoredMethod

LIMITATIONS = (
    "Decompiler output is imported as reconstruction evidence and analyst inference; metadata and IL observations "
    "remain canonical.",
    "This operation did not execute, load, reflect over, debug, instrument, patch, or decompile the target artifact.",
    "The imported reconstruction is valid only for the exact artifact SHA-256, MVID, method signature, and "
    "normalized IL shape recorded here.",
    "Obfuscated names, decompiler variables, and control-flow restructuring are not treated as proof without "
    "separate validation.",
)


def _mismatch(lock: w.MethodLock, observed: StoredMethod | None) -> tuple[str, Any, Any] | None:
    """The first part of the lock the observed method disagrees with: (part, expected, observed)."""
    if observed is None:
        return "token", lock.token, None
    if observed.signature_sha256 != lock.signature_sha256:
        return "signature_sha256", lock.signature_sha256, observed.signature_sha256
    body = observed.body
    if body.status != "present" or body.normalized_il_sha256 is None:
        return "body", "a fully decoded body", body.status
    if lock.normalized_il_sha256 != body.normalized_il_sha256:
        return "normalized_il_sha256", lock.normalized_il_sha256, body.normalized_il_sha256
    return None


def _refusal(index: int, lock: w.MethodLock, part: str, expected: Any, observed: Any) -> ReaError:
    return invalid_request(
        f"methods[{index}] ({lock.token}) does not match the static member observation: its {part} differs",
        field=f"methods[{index}].{part if part != 'body' else 'token'}",
        accepted="the token, signature.raw_sha256 and body.normalized_il_sha256 of one fully decoded method in the "
        "static_members Evidence (the exact build the decompiler read)",
        expected=expected,
        observed=observed,
    )


def _text(lock: w.MethodLock, index: int) -> Result[w.Reconstruction, ReaError]:
    given = lock.reconstruction
    text = given.text
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    if given.text_sha256 not in (None, digest):
        return Failure(invalid_request(
            f"methods[{index}].reconstruction.text_sha256 is not the SHA-256 of its text",
            field=f"methods[{index}].reconstruction.text_sha256", accepted=digest,
        ))  # fmt: skip
    return Success(w.Reconstruction(
        kind=given.kind, language=given.language, text=text, text_sha256=digest,
        text_length=len(text.encode("utf-16-le")) // 2, line_count=len(re.split(r"\r\n|\r|\n", text)),
        source_path=given.source_path, start_line=given.start_line, end_line=given.end_line,
    ))  # fmt: skip


def _imported(observed: StoredMethod, text: w.Reconstruction) -> w.ImportedMethod:
    body = observed.body
    return w.ImportedMethod(
        token=observed.token, declaring_type=observed.declaring_type, name=observed.name,
        signature_sha256=observed.signature_sha256, normalized_il_sha256=body.normalized_il_sha256,
        body_sha256=body.il_sha256, il_size=body.il_size, reconstruction=text,
        validation=w.Validation(matched_static_member=True, exact_build_required=True, canonical_observation=False,
                                confidence_floor="inference"),
    )  # fmt: skip


def _locked(lock: w.MethodLock, observed: StoredMethod | None, index: int) -> Result[w.ImportedMethod, ReaError]:
    """One method imported against its static observation, or the first part of its lock that disagrees."""
    wrong = _mismatch(lock, observed)
    if wrong is not None:
        return Failure(_refusal(index, lock, *wrong))
    assert observed is not None  # a lock with no observation mismatches on its token
    return _text(lock, index).map(lambda text: _imported(observed, text))


def lock_methods(
    members: StoredMembers, locks: Sequence[w.MethodLock]
) -> Result[tuple[w.ImportedMethod, ...], ReaError]:
    """Every method imported, or the refusal of the first (in request order) that does not match."""
    by_token = {m.token: m for m in members.methods}
    imported: Result[tuple[w.ImportedMethod, ...], ReaError] = Success(())
    for index, lock in enumerate(locks):
        imported = imported.bind(functools.partial(_and_locked, lock, by_token.get(lock.token), index))
    return imported


def _and_locked(
    lock: w.MethodLock, observed: StoredMethod | None, index: int, done: tuple[w.ImportedMethod, ...]
) -> Result[tuple[w.ImportedMethod, ...], ReaError]:
    """The methods imported so far and this one (a bind step: after a refusal no later lock is read)."""
    return _locked(lock, observed, index).map(lambda method: (*done, method))


def reconstruction(
    evidence_id: str, members: StoredMembers, args: w.ReconstructionArgs
) -> Result[w.ReconstructionResult, ReaError]:
    """The import of `args` against the members Evidence `evidence_id`, or why it is refused as a whole."""
    return lock_methods(members, args.methods).map(lambda methods: _result(evidence_id, members, args, methods))


def _result(
    evidence_id: str, members: StoredMembers, args: w.ReconstructionArgs, methods: Sequence[w.ImportedMethod]
) -> w.ReconstructionResult:
    d = args.decompiler
    decompiler = w.DecompilerRecord(
        name=d.name, version=d.version, family=d.family, executable_sha256=d.executable_sha256,
        options=tuple(d.options), options_sha256=canonical_sha256(list(d.options)),
    )  # fmt: skip
    kinds = [m.reconstruction.kind for m in methods]
    summary = w.ReconstructionSummary(
        imported_methods=len(methods), decompiled_csharp_methods=kinds.count("decompiled-csharp"),
        decompiled_il_methods=kinds.count("decompiled-il"), pseudocode_methods=kinds.count("semantic-pseudocode"),
        total_text_bytes=sum(m.reconstruction.text_length for m in methods),
    )  # fmt: skip
    a, module = members.artifact, members.module
    observation = w.StaticObservation(
        evidence_id=evidence_id, artifact_sha256=a.sha256, artifact_path=a.path, byte_length=a.byte_length,
        module_name=module.name, mvid=module.mvid, metadata_status=members.metadata_status,
    )  # fmt: skip
    key = [evidence_id, [[m.token, m.reconstruction.text_sha256] for m in methods], decompiler.options_sha256,
           d.name, d.version, list(args.notes)]  # fmt: skip
    return w.ReconstructionResult(
        schema_version=1, reconstruction_id="mre_" + canonical_sha256(key), phase="reconstruction-import",
        executed=False, static_observation=observation, decompiler=decompiler, summary=summary,
        methods=tuple(methods), notes=tuple(args.notes), evidence_links=(evidence_id,), limitations=LIMITATIONS,
    )  # fmt: skip
