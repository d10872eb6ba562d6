"""inspect_artifact's report, pure: one inventory substep projected into observations and probes.

The complete inventory Evidence travels inline in `substeps[0].evidence` (the handoff to
compare_artifacts), so the report restates only the manifest and the contradictions. Every
record id is a prefix plus the sha256 of the record's canonical JSON; the inspection id
commits to the substep through its Evidence id, which already commits to its content.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.evidence import Evidence

STATIC_NOTICE = (
    "Inspection proposes static follow-ups from the inventory alone; it neither runs the artifact nor decodes "
    "format-specific semantics."
)
_NOT_PROOF = "A format classification suggests a follow-up; it does not prove what the artifact contains."
_PAGE = ("inspect_analysis_view", "artifact-bytes")
# root format: (tool, authority, rationale)
PROBES: Mapping[str, tuple[tuple[str, str, str], ...]] = {
    "asar": (
        ("analyze_javascript_application", "ast-static-analysis", "recover its modules, source maps and IPC"),
        (*_PAGE, "page the occurrences for package.json and the main script"),
    ),
    "directory": (
        ("analyze_javascript_application", "ast-static-analysis", "recover the JavaScript application it may hold"),
    ),
    "apk": ((*_PAGE, "page the occurrences for classes*.dex and lib/*/*.so, then analyse them"),),
    "ipa": ((*_PAGE, "find Payload/*.app and its Mach-O executable"),),
    "aab": ((*_PAGE, "page the occurrences for base/dex/*.dex and base/lib/*/*.so, then analyse them"),),
    "aar": ((*_PAGE, "page the occurrences for classes.jar and jni/*/*.so"),),
    "whl": ((*_PAGE, "read *.dist-info/METADATA and RECORD, then the compiled extension modules"),),
    "crx": ((*_PAGE, "page the occurrences for manifest.json and its background and content scripts"),),
    **{
        native: (("open_binary", "native-analysis-provider", "bind the deep native provider for function analysis"),)
        for native in ("elf", "pe", "mach-o", "mach-o-universal")
    },
    **{
        dos: (("open_binary", "dos-load-image", "open it, then inspect_native_load_image loads and verifies it"),)
        for dos in ("dos-mz", "dos-com")
    },
}
HYPOTHESES: Mapping[str, str] = {
    "asar": "The archive likely packages an Electron application whose JavaScript graph can be recovered.",
    "pe": "The PE file may carry managed CLI metadata as well as native code; its bytes alone do not tell which.",
}


def _with_id(prefix: str, body: Mapping[str, Any]) -> dict[str, Any]:
    return {f"{prefix}_id": f"{_short(prefix)}_{canonical_sha256(body)}", **body}


def _short(prefix: str) -> str:
    return {"observation": "aio", "hypothesis": "aih", "contradiction": "aic", "branch": "aib"}[prefix]


def _observations(inventory: Mapping[str, Any], ev: str) -> list[dict[str, Any]]:
    manifest = inventory["manifest"]
    rows = [{"kind": "root-manifest", "subject": manifest["root_artifact_id"], "value": manifest, "evidence_id": ev}]
    rows += [
        {"kind": "integrity", "subject": c["contradiction_id"], "value": c, "evidence_id": ev}
        for c in inventory["integrity_contradictions"]
    ]
    return [_with_id("observation", row) for row in rows]


def _contradictions(inventory: Mapping[str, Any], ev: str) -> list[dict[str, Any]]:
    return [
        _with_id(
            "contradiction",
            {
                "statement": f"The integrity declared for {c['logical_path']} contradicts the bytes read.",
                "occurrence_id": c["occurrence_id"],
                "declared_sha256": c["declared_sha256"],
                "observed_sha256": c["observed_sha256"],
                "evidence_id": ev,
                "logical_path": c["logical_path"],
            },
        )
        for c in inventory["integrity_contradictions"]
    ]


def _probes(root_format: str) -> list[dict[str, Any]]:
    return [{"operation": op, "rationale": why, "authority": auth} for op, auth, why in PROBES.get(root_format, ())]


def _branches(root_format: str, probes: Sequence[Mapping[str, Any]], ev: str) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = [
        {
            "reason": "format-specific-analysis-required",
            "detail": f"{p['operation']} was not run by this provider-neutral inspection.",
            "next_probe": dict(p),
            "evidence_id": ev,
        }
        for p in probes
    ]
    if root_format == "file":  # our name for bytes no format classifier admitted
        rows.append(
            {
                "reason": "unknown-format",
                "detail": "The root's bytes matched no known format.",
                "next_probe": None,
                "evidence_id": ev,
            }
        )
    return [_with_id("branch", row) for row in rows]


def _hypotheses(root_format: str, ev: str) -> list[dict[str, Any]]:
    statement = HYPOTHESES.get(root_format)
    if statement is None:
        return []
    body = {"statement": statement, "confidence": "low", "basis_evidence_ids": [ev], "limitation": _NOT_PROOF}
    return [_with_id("hypothesis", body)]


def _capped(
    sections: Mapping[str, list[dict[str, Any]]], caps: Mapping[str, int | None]
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    kept = {name: rows[: caps.get(name) or len(rows)] for name, rows in sections.items()}
    return kept, {f"{name}_{k}": n for name in sections for k, n in _counts(sections[name], kept[name]).items()}


def _counts(rows: Sequence[Any], kept: Sequence[Any]) -> dict[str, int]:
    return {"retained": len(kept), "omitted": len(rows) - len(kept)}


def inspection_result(inventory_evidence: Evidence, caps: Mapping[str, int | None]) -> dict[str, Any]:
    """The inspect_artifact payload for one completed inventory substep; `caps` are the optional max_* args."""
    inventory = inventory_evidence.normalized_result
    ev = inventory_evidence.evidence_id
    manifest = inventory["manifest"]
    fmt = manifest["root_format"]
    probes = _probes(fmt)
    sections = {
        "observations": _observations(inventory, ev),
        "hypotheses": _hypotheses(fmt, ev),
        "unexplored_branches": _branches(fmt, probes, ev),
        "next_probes": probes,
    }
    kept, counts = _capped(sections, {name: caps.get(f"max_{name}") for name in sections})
    omitted = any(v for k, v in counts.items() if k.endswith("_omitted"))
    traversal = inventory["coverage"]
    status = "truncated" if omitted else "partial" if traversal["status"] != "complete" else "complete-within-substeps"
    substep = {"operation": "inventory_artifact", "evidence_id": ev}
    semantic = {
        "schema_version": 1,
        "subject": {k: manifest[k] for k in ("manifest_id", "root_artifact_id", "root_sha256", "root_format")},
        "substeps": [
            {"substep_id": "ais_" + canonical_sha256(substep), **substep, "status": "completed", "evidence": None}
        ],
        **kept,
        "contradictions": _contradictions(inventory, ev),
        "coverage": {"status": status, "substeps_completed": 1, **counts},
        "evidence_links": [ev],
        "limitations": sorted({*inventory["limitations"], STATIC_NOTICE}),
        "inventory_evidence_ids": [ev],
        "inventory_coverage": dict(traversal),
        "coverage_status": inventory["coverage_status"],
    }
    inspection_id = "ai_" + canonical_sha256(semantic)  # the substep commits through its evidence_id
    semantic["substeps"][0]["evidence"] = inventory_evidence.to_json()
    return {"inspection_id": inspection_id, **semantic}
