"""extract_artifact, pure: which occurrences to materialize, and the result once they are written.

With no selector every regular file is extracted. Selection is decided against the complete
inventory before anything is written, so a traversal limit the inventory already hit fails the
call (truncated) instead of publishing a partial tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

import attrs
from returns.result import Failure, Result, Success

from rea.artifacts import model
from rea.artifacts.model import ExtractionFacts
from rea.artifacts.records import Contradiction, Limits, Manifest
from rea.artifacts.report_records import Cleanup, ExtractedArtifact, ExtractionManifest, ExtractionResult
from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.results import all_of
from rea.wire.convert import EXACT

OUTPUT_ROOT_ALIAS: Literal["$OUTPUT_ROOT"] = "$OUTPUT_ROOT"
_ACCEPTED = "occ_ ids of regular-file occurrences from inventory_artifact or inspect_artifact on the active target"


@attrs.frozen
class Selected:
    occurrence_id: str
    chain: tuple[str, ...]
    occurrence: Mapping[str, Any]


def chains(complete: Mapping[str, Any]) -> dict[str, tuple[tuple[str, ...], Mapping[str, Any]]]:
    """Every occurrence's container chain (member names from the root down; the root's is empty)."""
    by_id = {o["occurrence_id"]: o for o in complete["occurrences"]}
    out: dict[str, tuple[tuple[str, ...], Mapping[str, Any]]] = {}
    for occ in complete["occurrences"]:
        parts: list[str] = []
        current = occ
        while current["parent_occurrence_id"] is not None:
            parts.append(current["logical_path"])
            current = by_id[current["parent_occurrence_id"]]
        out[occ["occurrence_id"]] = (tuple(reversed(parts)), occ)
    return out


def _refused(chain: tuple[str, ...], occ: Mapping[str, Any]) -> ReaError:
    what = occ["entry_kind"] if chain else "root"
    return invalid_request(
        f"{'/'.join(chain) or occ['logical_path']} is a {what} occurrence; only regular-file members are "
        "extracted (symlinks and directories are never materialized)",
        field="occurrence_ids",
        accepted=_ACCEPTED,
    )


def _available(item: Selected, hits: Sequence[Mapping[str, Any]]) -> Result[Selected, ReaError]:
    """The occurrence, when its bytes were read (so they can be written)."""
    path = "/".join(item.chain)
    occ = item.occurrence
    if occ["unpacked"] and occ["hash_status"] == "unavailable":
        return Failure(
            ReaError(
                code="target_unavailable",
                message=f"{path} is an ASAR unpacked entry whose companion file in .asar.unpacked is absent, so it "
                "cannot be extracted.",
                details={"logical_path": path, "occurrence_id": item.occurrence_id},
                action="Restore the app.asar.unpacked directory beside the archive, then retry.",
            )
        )
    if occ["hash_status"] == "not-hashed-limit":
        hit = next((h for h in hits if h["logical_path"] == path), hits[0] if hits else None)
        return Failure(_truncated(path, f"a traversal limit kept the bytes of {path} from being read", hit))
    return Success(item)


def _truncated(path: str | None, why: str, hit: Mapping[str, Any] | None = None) -> ReaError:
    details: dict[str, Any] = {"logical_path": path}
    if hit is not None:
        details.update(limit=hit["limit"], value=hit["value"])
    return ReaError(
        code="truncated",
        message=f"Nothing was extracted: {why}. Raise the limit (max_* arguments) and retry.",
        details=details,
    )


def _explicit(complete: Mapping[str, Any], ids: Sequence[str]) -> Result[list[Selected], ReaError]:
    known = chains(complete)
    picked = []
    for occ_id in ids:
        found = known.get(occ_id)
        if found is None:
            return Failure(
                invalid_request(
                    f"{occ_id} is not an occurrence of the active target's inventory (manifest "
                    f"{complete['manifest']['manifest_id']})",
                    field="occurrence_ids",
                    accepted=_ACCEPTED,
                )
            )
        chain, occ = found
        if occ["entry_kind"] != "file" or not chain:
            return Failure(_refused(chain, occ))
        picked.append(Selected(occ_id, chain, occ))
    return Success(picked)


def _every_file(complete: Mapping[str, Any]) -> Result[list[Selected], ReaError]:
    hits = complete["limit_hits"]
    if hits:  # the extraction walk would stop where the inventory did
        hit = hits[0]
        return Failure(_truncated(hit["logical_path"], f"limit {hit['limit']}={hit['value']} was reached", hit))
    picked = [
        Selected(occ_id, chain, occ)
        for occ_id, (chain, occ) in chains(complete).items()
        if chain and occ["entry_kind"] == "file"
    ]
    if not picked:
        return Failure(
            invalid_request(
                "The active target holds no regular-file members to extract",
                field="occurrence_ids",
                accepted="a container target (archive, package or directory) with regular files",
            )
        )
    return Success(picked)


def select(complete: Mapping[str, Any], ids: Sequence[str] | None) -> Result[list[Selected], ReaError]:
    """The occurrences to write, or the error that stops the call before anything is written."""
    picked = _every_file(complete) if ids is None else _explicit(complete, ids)
    return picked.bind(lambda items: all_of(_available(item, complete["limit_hits"]) for item in items))


def _artifacts(selected: Sequence[Selected], extraction: ExtractionFacts) -> tuple[ExtractedArtifact, ...]:
    written = {f.chain: f for f in extraction.files}
    rows = []
    for item in selected:
        f = written[item.chain]  # the effect fails when a selected member was not written
        rows.append(
            ExtractedArtifact(
                artifact_id=item.occurrence["artifact_id"],
                relative_path=f.relative_path,
                sha256=f.sha256,
                bytes_written=f.bytes_written,
                created=True,
                occurrence_id=item.occurrence_id,
                logical_path="!/".join(item.chain),
            )
        )
    return tuple(rows)


def _files_sha256(artifacts: Sequence[ExtractedArtifact]) -> str:
    """The digest the extraction id commits to: each file's identity, never where output_root is."""
    return canonical_sha256(
        [
            {
                "artifact_id": a.artifact_id,
                "relative_path": a.relative_path,
                "sha256": a.sha256,
                "bytes_written": a.bytes_written,
            }
            for a in sorted(artifacts, key=lambda a: a.relative_path)
        ]
    )


def _limits(limits: model.Limits) -> Limits:
    return Limits(
        max_entries=limits.max_entries,
        max_total_bytes=limits.max_total_bytes,
        max_entry_bytes=limits.max_entry_bytes,
        max_compression_ratio=limits.max_compression_ratio,
        max_depth=limits.max_depth,
        max_path_bytes=limits.max_path_bytes,
    )


def extraction_result(
    complete: Mapping[str, Any], selected: Sequence[Selected], extraction: ExtractionFacts, limits: model.Limits
) -> ExtractionResult:
    """The extract_artifact payload; ids commit to the files written, never to output_root. `complete` is
    the inventory this call just built, so its manifest and contradictions structure exactly (EXACT keeps
    each number as the graph holds it)."""
    artifacts = _artifacts(selected, extraction)
    manifest: Manifest = EXACT.structure(complete["manifest"], Manifest)
    ids = tuple(s.occurrence_id for s in selected)
    files_sha256 = _files_sha256(artifacts)
    commitment = {
        "source_manifest_id": manifest.manifest_id,
        "selected_occurrence_ids": list(ids),
        "files_sha256": files_sha256,
    }
    chosen = set(ids)
    contradictions = tuple(
        EXACT.structure(c, Contradiction) for c in complete["integrity_contradictions"] if c["occurrence_id"] in chosen
    )
    return ExtractionResult(
        manifest=manifest,
        extraction_manifest=ExtractionManifest(
            schema_version=1,
            extraction_id="aex_" + canonical_sha256(commitment),
            source_manifest_id=manifest.manifest_id,
            selected_occurrence_ids=ids,
            files_sha256=files_sha256,
            output_root_alias=OUTPUT_ROOT_ALIAS,
        ),
        output_root=extraction.output_root,
        artifacts=artifacts,
        containment_verified=extraction.containment_verified,
        cleanup=Cleanup(attempted=False, verified=True, residual_paths=()),
        provenance=(),
        integrity_contradictions=contradictions,
        limits=_limits(limits),
        limitations=(
            ("Files were written from observed bytes that contradict declared integrity hashes.",)
            if contradictions
            else ()
        ),
    )
