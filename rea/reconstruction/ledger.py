"""build_reconstruction_obligation_ledger: every obligation with what closes it and what keeps it open.

The obligations are the reviewer's and those the bundle's application graphs and process captures
name (rea.reconstruction.candidates); one id declared twice is one obligation, duplicate-definition.

An obligation is `verified` only when one manifest binding names its owner (and parser type
when required), original cases and fixtures cover every required case kind with comparable
authority, and a passing verifier of comparable authority enumerates it with its result in the
bundle; and no contradiction, residual unknown, unavailable authority or open dependency
touches it. Every shortfall is a diagnostic. The ledger is `ready` only when every required
obligation is verified, `failed` when a required one is contradicted, `unknown` with no
obligations, a required unknown one or a source it could not read, and `open` otherwise.

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
from rea.reconstruction.candidates import Candidate, generate, merge, unique
from rea.reconstruction.records.ledger import Binding, LedgerRequest, ReviewedObligation, Verifier
from rea.reconstruction.refusal import attempt, refuse
from rea.wire.convert import to_wire

LIMITATIONS = (
    "A verified obligation is a claim the cited Evidence closes; it does not establish equivalence of the whole.",
)
# a test authority closes a requirement of its own kind or of a weaker rank (a unit test never closes packaged-process)
RANK = {"unit": 0, "integration": 1, "protocol": 2, "renderer": 2, "native-abi": 2, "packaged-process": 3,
        "live-observation": 4, "external": 4}  # fmt: skip
# the Evidence authorities that observe the original as each requirement needs
ORIGINAL = {"static": {"shipped-artifact", "controlled-replay"}, "runtime": {"controlled-replay"},
            "process": {"controlled-replay"}, "external": {"external-service", "controlled-replay"}}  # fmt: skip
PROCESS_CAPTURE = "capture_process_scenario"
UNKNOWN_CODES = {"duplicate-definition", "ambiguous-owner", "residual-unknown", "unavailable-authority"}
FAILED_CODES = {"contradiction", "verifier-failed"}


def closes(have: str, need: str) -> bool:
    return have == need or RANK[have] > RANK[need]


def observes(evidence: Evidence, need: str) -> bool:
    """Whether Evidence observes the original as a requirement needs: by its authority, or, for a process
    requirement, by being an observed process capture (REA's captures name the executable they ran)."""
    if need == "process" and evidence.operation == PROCESS_CAPTURE and evidence.confidence == "observed":
        return True
    return evidence.authority in ORIGINAL[need]


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


def _original_diagnostics(c: Candidate, cases: Sequence[Mapping[str, Any]],
                          records: Mapping[str, Evidence]) -> list[tuple[str, str]]:  # fmt: skip
    """Every required case kind observed on the original, each observation of the authority it needs."""
    need, kinds = c.fields["required_original_authority"], {x["kind"] for x in cases}
    out = [
        ("missing-original-case", f"no original {k} case") for k in c.fields["required_case_kinds"] if k not in kinds
    ]
    for x in cases:
        evidence = records[x["evidence_id"]]
        if not observes(evidence, need):
            code = "static-only" if evidence.authority == "shipped-artifact" else "weak-original-case-authority"
            out.append(
                (code, f"the {x['kind']} case {x['evidence_id']} is {evidence.authority}, not a {need} observation")
            )
    return out


def _fixture_diagnostics(c: Candidate, b: Binding) -> list[tuple[str, str]]:
    out = []
    need = c.fields["required_fixture_authority"]
    for k in c.fields["required_case_kinds"]:
        fixtures = [f for f in b.fixtures if f.case_kind == k]
        if not fixtures:
            out.append(("missing-case", f"no {k} fixture"))
        elif not any(closes(f.authority, need) for f in fixtures):
            out.append(("weak-fixture-authority", f"no {k} fixture of {need} authority"))
    return out


def _recorded_verdict(v: Verifier, records: Mapping[str, Evidence]) -> list[tuple[str, str]]:
    """A declared pass resting on a verify_reconstruction record that did not pass is not a pass: the record's
    own verdict wins (a pass is never read into more than the record says)."""
    result = records.get(v.result_evidence_id)
    if v.status != "pass" or result is None or result.operation != "verify_reconstruction":
        return []
    verdict = result.normalized_result.get("status") if isinstance(result.normalized_result, Mapping) else None
    if verdict == "pass":
        return []
    code = "verifier-failed" if verdict == "fail" else "missing-verifier-result"
    return [(code, f"{v.result_evidence_id} records verify_reconstruction {verdict}, not pass")]


def _verifier_diagnostics(c: Candidate, b: Binding, records: Mapping[str, Evidence]) -> list[tuple[str, str]]:
    v = b.verifier
    if v is None:
        return [("missing-verifier", "no verifier is bound")]
    out = []
    if c.obligation_id not in v.enumerated_obligation_ids:
        out.append(("verifier-does-not-enumerate", f"{v.verifier_id} does not enumerate {c.obligation_id}"))
    if v.result_evidence_id not in records:
        out.append(("missing-verifier-result", f"{v.result_evidence_id} is not in evidence_bundle"))
    if not closes(v.authority, c.fields["required_verifier_authority"]):
        out.append(
            ("weak-verifier-authority", f"{v.authority} does not close {c.fields['required_verifier_authority']}")
        )
    if v.status == "fail":
        out.append(("verifier-failed", f"{v.verifier_id} failed"))
    elif v.status != "pass":
        out.append(("missing-verifier-result", f"{v.verifier_id} is {v.status}, not pass"))
    return out + _recorded_verdict(v, records)


def _cases(c: Candidate, bindings: Sequence[Binding]) -> list[Mapping[str, Any]]:
    """The original's observed cases: those the source names and those the one binding adds."""
    bound = [to_wire(x) for x in bindings[0].original_cases] if len(bindings) == 1 else []
    return unique([*c.fields["observed_cases"], *bound], "kind", "evidence_id", "location")


def _own_diagnostics(
    c: Candidate,
    bindings: Sequence[Binding],
    contradicted: set[str],
    records: Mapping[str, Evidence],
) -> list[tuple[str, str]]:
    oid, f = c.obligation_id, c.fields
    out = [("duplicate-definition", f"{oid} is declared more than once")] if c.definitions > 1 else []
    if c.disposition != "active":
        out.append((c.disposition, f"the reviewer marked it {c.disposition}"))
    if oid in contradicted:
        out.append(("contradiction", "the manifest records a contradiction"))
    out += [("residual-unknown", f"residual unknown {u}") for u in f["residual_unknown_ids"]]
    out += [("unavailable-authority", a) for a in f["unavailable_authority"]]
    original = _original_diagnostics(c, _cases(c, bindings), records)
    if len(bindings) != 1:
        owner = ("missing-owner", "no manifest binding names an owner") if not bindings else (
            "ambiguous-owner", f"{len(bindings)} bindings name owners")  # fmt: skip
        return [*out, owner, *original]
    b = bindings[0]
    if f["requires_parser_type"] and b.parser_type is None:
        out.append(("missing-parser-type", "a parser type is required"))
    return out + original + _fixture_diagnostics(c, b) + _verifier_diagnostics(c, b, records)


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


def _row(c: Candidate, bindings: Sequence[Binding], diagnostics: list[tuple[str, str]]) -> dict[str, Any]:
    codes = {code for code, _ in diagnostics}
    return {
        **c.fields,
        "observed_cases": _cases(c, bindings),
        "binding": to_wire(bindings[0]) if len(bindings) == 1 else None,
        "status": status_of(codes, bool(bindings)),
        "diagnostics": [{"code": code, "detail": d} for code, d in diagnostics],
    }


def reviewed(o: ReviewedObligation, records: Mapping[str, Evidence]) -> Candidate:
    """A reviewer's obligation as a candidate: its own fields, cited by the review records."""
    wire = to_wire(o)
    refs = [{"evidence_id": e, "authority": records[e].authority, "state": "reviewed", "location": o.target.location}
            for e in o.review_evidence_ids]  # fmt: skip
    fields = {k: v for k, v in wire.items() if k not in ("disposition", "review_evidence_ids")}
    return Candidate(fields={**fields, "origin": "reviewed", "authority_references": refs, "source_state": "reviewed",
                             "observed_cases": []}, disposition=o.disposition)  # fmt: skip


def candidates(args: LedgerRequest, records: Mapping[str, Evidence]) -> tuple[dict[str, Candidate], tuple[str, ...]]:
    """The generated candidates first, then the reviewed ones (lowest version first): one id declared twice is
    one candidate marked duplicate-definition."""
    found = generate(records)
    out = dict(found.candidates)
    for o in sorted(args.reviewed_obligations, key=lambda o: (o.obligation_id, o.obligation_version)):
        merge(out, reviewed(o, records))
    return out, found.limitations


def _rows(args: LedgerRequest, records: Mapping[str, Evidence]) -> tuple[dict[str, dict[str, Any]], tuple[str, ...]]:
    contradicted = {c.obligation_id for c in args.manifest.contradictions}
    found, notes = candidates(args, records)
    rows: dict[str, dict[str, Any]] = {}
    for key in sorted(found):
        c = found[key]
        bindings = [b for b in args.manifest.bindings if b.obligation_id == key]
        rows[key] = _row(c, bindings, _own_diagnostics(c, bindings, contradicted, records))
    _with_dependencies(rows)
    return rows, notes


def ledger_status(rows: Sequence[Mapping[str, Any]], unread: bool = False) -> str:
    """failed first; then unknown with no obligations, a required unknown one, or a source whose candidates could
    not all be read (what it would have named is unknown, not absent); ready only when every required one is
    verified."""
    required = [r["status"] for r in rows if r["required"]]
    if "contradicted" in required:
        return "failed"
    if not rows or unread or "unknown" in required:
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
    found, notes = _rows(args, records)
    every = list(found.values())
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
        "status": ledger_status(kept, bool(notes)),
        "coverage": {"status": "partial" if len(every) > len(kept) or notes else "complete", "truncated": len(every) > len(kept),
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
        "limitations": [*notes, *LIMITATIONS],
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
