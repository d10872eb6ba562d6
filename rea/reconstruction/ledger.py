"""build_reconstruction_obligation_ledger: every reviewed obligation with what closes it and what keeps it open.

An obligation is `verified` only when one manifest binding names its owner (and parser type
when required), original cases and fixtures cover every required case kind with comparable
authority, and a passing verifier of comparable authority enumerates it with its result in the
bundle; and no contradiction, residual unknown, unavailable authority or open dependency
touches it. Every shortfall is a diagnostic. The ledger is `ready` only when every required
obligation is verified, `failed` when a required one is contradicted, `unknown` with no
obligations or a required unknown one, and `open` otherwise.

Identity: `ledger_id` is a digest of the inputs with every list sorted, so the same obligations
in another order are the same ledger; pages share it and `closure_digest`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from returns.result import Result

from rea.canonical_json import canonical_sha256
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence
from rea.paging import paginate
from rea.reconstruction.records.ledger import Binding, LedgerRequest, ReviewedObligation
from rea.reconstruction.refusal import attempt, refuse
from rea.wire.convert import to_wire

LIMITATIONS = (
    "Only reviewed obligations are ledgered: candidates are not generated from Application Graph or process-capture "
    "records here.",
    "A verified obligation is a claim the cited Evidence closes; it does not establish equivalence of the whole.",
)
# a test authority closes a requirement of its own kind or of a weaker rank (a unit test never closes packaged-process)
RANK = {"unit": 0, "integration": 1, "protocol": 2, "renderer": 2, "native-abi": 2, "packaged-process": 3,
        "live-observation": 4, "external": 4}  # fmt: skip
# the Evidence authorities that observe the original as each requirement needs
ORIGINAL = {"static": {"shipped-artifact", "controlled-replay"}, "runtime": {"controlled-replay"},
            "process": {"controlled-replay"}, "external": {"external-service", "controlled-replay"}}  # fmt: skip
UNKNOWN_CODES = {"duplicate-definition", "ambiguous-owner", "residual-unknown", "unavailable-authority"}
FAILED_CODES = {"contradiction", "verifier-failed"}


def closes(have: str, need: str) -> bool:
    return have == need or RANK[have] > RANK[need]


def _cited(args: LedgerRequest) -> list[tuple[str, str]]:
    """(where, evidence id) of every Evidence id the request cites that must be in the bundle."""
    out = [(f"reviewed_obligations[{i}].review_evidence_ids", e)
           for i, o in enumerate(args.reviewed_obligations) for e in o.review_evidence_ids]  # fmt: skip
    for i, b in enumerate(args.manifest.bindings):
        out += [(f"manifest.bindings[{i}].original_cases", c.evidence_id) for c in b.original_cases]
        out += [(f"manifest.bindings[{i}].fixtures", e) for f in b.fixtures for e in f.evidence_ids]
    return out


def _check(args: LedgerRequest, records: Mapping[str, Evidence]) -> None:
    for where, evidence_id in _cited(args):
        if evidence_id not in records:
            refuse(invalid_request(f"{where} cites {evidence_id}, which is not in evidence_bundle", field=where,
                                   accepted="Evidence ids of evidence_bundle.records"))  # fmt: skip


def _case_diagnostics(o: ReviewedObligation, b: Binding, records: Mapping[str, Evidence]) -> list[tuple[str, str]]:
    out = []
    kinds = {c.kind for c in b.original_cases}
    out += [("missing-original-case", f"no original {k} case") for k in o.required_case_kinds if k not in kinds]
    for c in b.original_cases:
        authority = records[c.evidence_id].authority
        if authority not in ORIGINAL[o.required_original_authority]:
            code = "static-only" if authority == "shipped-artifact" else "weak-original-case-authority"
            out.append(
                (
                    code,
                    f"the {c.kind} case {c.evidence_id} is {authority}, not a {o.required_original_authority} observation",
                )
            )
    for k in o.required_case_kinds:
        fixtures = [f for f in b.fixtures if f.case_kind == k]
        if not fixtures:
            out.append(("missing-case", f"no {k} fixture"))
        elif not any(closes(f.authority, o.required_fixture_authority) for f in fixtures):
            out.append(("weak-fixture-authority", f"no {k} fixture of {o.required_fixture_authority} authority"))
    return out


def _verifier_diagnostics(o: ReviewedObligation, b: Binding, records: Mapping[str, Evidence]) -> list[tuple[str, str]]:
    v = b.verifier
    if v is None:
        return [("missing-verifier", "no verifier is bound")]
    out = []
    if o.obligation_id not in v.enumerated_obligation_ids:
        out.append(("verifier-does-not-enumerate", f"{v.verifier_id} does not enumerate {o.obligation_id}"))
    if v.result_evidence_id not in records:
        out.append(("missing-verifier-result", f"{v.result_evidence_id} is not in evidence_bundle"))
    if not closes(v.authority, o.required_verifier_authority):
        out.append(("weak-verifier-authority", f"{v.authority} does not close {o.required_verifier_authority}"))
    if v.status == "fail":
        out.append(("verifier-failed", f"{v.verifier_id} failed"))
    elif v.status != "pass":
        out.append(("missing-verifier-result", f"{v.verifier_id} is {v.status}, not pass"))
    return out


def _own_diagnostics(
    o: ReviewedObligation,
    bindings: Sequence[Binding],
    contradicted: set[str],
    duplicate: bool,
    records: Mapping[str, Evidence],
) -> list[tuple[str, str]]:
    out = [("duplicate-definition", f"{o.obligation_id} is declared more than once")] if duplicate else []
    if o.disposition != "active":
        out.append((o.disposition, f"the reviewer marked it {o.disposition}"))
    if o.obligation_id in contradicted:
        out.append(("contradiction", "the manifest records a contradiction"))
    out += [("residual-unknown", f"residual unknown {u}") for u in o.residual_unknown_ids]
    out += [("unavailable-authority", a) for a in o.unavailable_authority]
    if not bindings:
        return [*out, ("missing-owner", "no manifest binding names an owner")]
    if len(bindings) > 1:
        return [*out, ("ambiguous-owner", f"{len(bindings)} bindings name owners")]
    b = bindings[0]
    if o.requires_parser_type and b.parser_type is None:
        out.append(("missing-parser-type", "a parser type is required"))
    return out + _case_diagnostics(o, b, records) + _verifier_diagnostics(o, b, records)


def status_of(codes: set[str], bound: bool) -> str:
    """Disposition first, then contradiction, then unknown; verified only with no diagnostic."""
    for disposition in ("blocked", "out-of-scope"):
        if disposition in codes:
            return disposition
    if codes & FAILED_CODES:
        return "contradicted"
    if codes & UNKNOWN_CODES:
        return "unknown"
    if not codes:
        return "verified"
    return "implemented" if bound else "unowned"


def _with_dependencies(rows: dict[str, dict[str, Any]]) -> None:
    """dependency-missing and dependency-open. A row stays verified only when every dependency is verified
    first (a least fixpoint from nothing), so a dependency cycle never verifies."""
    for row in rows.values():
        for dep in row["dependency_obligation_ids"]:
            if dep not in rows:
                row["diagnostics"].append({"code": "dependency-missing", "detail": f"{dep} is not in the ledger"})
    candidates = {k for k, r in rows.items() if r["status"] == "verified" and not r["diagnostics"]}
    verified: set[str] = set()
    grew = True
    while grew:
        ready = {k for k in candidates - verified if set(rows[k]["dependency_obligation_ids"]) <= verified}
        verified |= ready
        grew = bool(ready)
    for key, row in rows.items():
        open_deps = sorted(d for d in row["dependency_obligation_ids"] if d in rows and d not in verified)
        if open_deps:
            row["diagnostics"].append({"code": "dependency-open", "detail": f"open: {', '.join(open_deps)}"})
        if row["status"] == "verified" and key not in verified:
            row["status"] = "implemented"


def _row(o: ReviewedObligation, bindings: Sequence[Binding], diagnostics: list[tuple[str, str]],
         records: Mapping[str, Evidence]) -> dict[str, Any]:  # fmt: skip
    wire = to_wire(o)
    codes = {code for code, _ in diagnostics}
    return {
        **{k: wire[k] for k in wire if k not in ("disposition", "review_evidence_ids")},
        "origin": "reviewed",
        "authority_references": [
            {"evidence_id": e, "authority": records[e].authority, "state": "reviewed", "location": o.target.location}
            for e in o.review_evidence_ids
        ],  # fmt: skip
        "source_state": "reviewed",
        "observed_cases": [to_wire(c) for c in bindings[0].original_cases] if len(bindings) == 1 else [],
        "binding": to_wire(bindings[0]) if len(bindings) == 1 else None,
        "status": status_of(codes, bool(bindings)),
        "diagnostics": [{"code": c, "detail": d} for c, d in diagnostics],
    }


def _rows(args: LedgerRequest, records: Mapping[str, Evidence]) -> dict[str, dict[str, Any]]:
    counts = Counter(o.obligation_id for o in args.reviewed_obligations)
    contradicted = {c.obligation_id for c in args.manifest.contradictions}
    rows: dict[str, dict[str, Any]] = {}
    for o in sorted(args.reviewed_obligations, key=lambda o: (o.obligation_id, o.obligation_version)):
        if o.obligation_id in rows:
            continue  # a duplicate definition: the first (lowest version) is kept and marked
        bindings = [b for b in args.manifest.bindings if b.obligation_id == o.obligation_id]
        found = _own_diagnostics(o, bindings, contradicted, counts[o.obligation_id] > 1, records)
        rows[o.obligation_id] = _row(o, bindings, found, records)
    _with_dependencies(rows)
    return rows


def ledger_status(rows: Sequence[Mapping[str, Any]]) -> str:
    required = [r["status"] for r in rows if r["required"]]
    if not rows:
        return "unknown"
    if "contradicted" in required:
        return "failed"
    if "unknown" in required:
        return "unknown"
    return "ready" if all(s == "verified" for s in required) else "open"


def _counts(values: Sequence[str]) -> list[dict[str, Any]]:
    return [{"key": k, "count": n} for k, n in sorted(Counter(values).items())]


def _identity(args: LedgerRequest, records: Mapping[str, Evidence]) -> str:
    wire = to_wire(args)
    manifest = wire["manifest"]
    return "rol_" + canonical_sha256({
        "records": sorted(records), "max_obligations": args.limits.max_obligations,
        "reviewed": sorted(wire["reviewed_obligations"], key=canonical_sha256),
        "bindings": sorted(manifest["bindings"], key=canonical_sha256),
        "contradictions": sorted(manifest["contradictions"], key=canonical_sha256),
    })  # fmt: skip


def build(args: LedgerRequest, records: Mapping[str, Evidence]) -> Result[dict[str, Any], ReaError]:
    return attempt(lambda: _build(args, records))


def _build(args: LedgerRequest, records: Mapping[str, Evidence]) -> dict[str, Any]:
    _check(args, records)
    every = list(_rows(args, records).values())
    kept = every[: args.limits.max_obligations]
    page = paginate(kept, args.page.offset, args.page.limit)
    bound = [r for r in kept if r["binding"] is not None]
    links = {e for r in kept for e in (*(a["evidence_id"] for a in r["authority_references"]),
                                        *(c["evidence_id"] for c in r["observed_cases"]))}  # fmt: skip
    links |= {r["binding"]["verifier"]["result_evidence_id"] for r in bound if r["binding"]["verifier"]} & set(records)
    return {
        "schema": "ReconstructionObligationLedger", "schema_version": 1,
        "ledger_id": _identity(args, records),
        "closure_digest": canonical_sha256([[r["obligation_id"], r["obligation_version"], r["status"], r["diagnostics"]] for r in kept]),
        "status": ledger_status(kept),
        "coverage": {"status": "partial" if len(every) > len(kept) else "complete", "truncated": len(every) > len(kept),
                     "omitted_count": len(every) - len(kept), "max_obligations": args.limits.max_obligations},
        "summary": {"total": len(kept), "required": sum(r["required"] for r in kept),
                    "verified": sum(r["status"] == "verified" for r in kept),
                    "required_open": sum(r["required"] and r["status"] != "verified" for r in kept),
                    "by_status": _counts([r["status"] for r in kept]),
                    "by_application_layer": _counts([r["application_layer"] for r in kept]),
                    "by_evidence_authority": _counts([r["source_state"] for r in kept])},
        "reports": _reports(kept),
        "ownership_graph": [{"obligation_id": r["obligation_id"], "module_path": r["binding"]["owner"]["module_path"],
                             "symbol": r["binding"]["owner"]["symbol"]} for r in bound],
        "dependency_graph": [{"obligation_id": r["obligation_id"], "depends_on_obligation_id": d}
                             for r in kept for d in sorted(r["dependency_obligation_ids"])],
        "evidence_links": sorted(links),
        "limitations": list(LIMITATIONS),
        "page": {"offset": page.offset, "limit": args.page.limit, "total": page.total, "returned": len(page.items),
                 "next_offset": page.next_offset},
        "obligations": list(page.items),
    }  # fmt: skip


def _reports(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[str]]:
    def having(code: str) -> list[str]:
        return [r["obligation_id"] for r in rows if any(d["code"] == code for d in r["diagnostics"])]

    return {
        "missing_owner_obligation_ids": having("missing-owner"),
        "missing_verifier_obligation_ids": having("missing-verifier"),
        "contradicted_obligation_ids": [r["obligation_id"] for r in rows if r["status"] == "contradicted"],
        "residual_unknown_ids": sorted({u for r in rows for u in r["residual_unknown_ids"]}),
    }
