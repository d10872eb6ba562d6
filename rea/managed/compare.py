"""compare_managed_members: match two builds' members by content, never by token or name alone.

Rounds, each over what earlier rounds left unmatched (a key shared by more than one member on
either side makes all of them ambiguous, never a guess):
1. exact-il-signature: the raw signature and the decoded-CIL-tuple hash;
2. exact-signature: declaring type, name and raw signature (the body may have changed);
3. structural-method-shape: signature, header and opcode/anchor/exception shape without tokens.
Fields match by raw signature only (field-signature). Inputs are the normalized results of two
inspect_managed_members Evidence records; the answer is a pure function of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rea.canonical_json import canonical_sha256
from rea.managed.records import compare as w
from rea.managed.retained_results import ComparedBody, ComparedMember, ComparedSide

Member = ComparedMember
KeyFn = Callable[[Member], str | None]


def _decoded(m: Member) -> bool:
    return m.signature.parse_status == "decoded"


def _exact(m: Member) -> str | None:
    body = m.body
    if not _decoded(m) or body.status != "present" or body.normalized_il_sha256 is None:
        return None
    return canonical_sha256(["method-exact", m.signature.raw_sha256, body.normalized_il_sha256])


def _declared(m: Member) -> str | None:
    return canonical_sha256(["method-signature", m.declaring_type, m.name, m.signature.raw_sha256]) if _decoded(m) else None  # fmt: skip


def _structural(m: Member) -> str | None:
    body, sig = m.body, m.signature
    if not _decoded(m) or body.status != "present":
        return None
    shape = [
        sig.kind, sig.calling_convention, sig.generic_parameter_count, sig.parameter_count,
        sig.return_type, sig.parameter_types, body.header_format, body.il_size, body.max_stack,
        body.init_locals, body.opcode_counts, [list(a) for a in body.anchors],
        [[r.flags, r.try_length, r.handler_length, r.class_token is not None, r.filter_offset is not None]
         for r in body.exception_regions],
    ]  # fmt: skip
    return canonical_sha256(["method-structural", shape])


def _field_key(f: Member) -> str | None:
    return canonical_sha256(["field-exact", f.signature.raw_sha256]) if _decoded(f) else None


METHOD_ROUNDS: tuple[tuple[w.Basis, KeyFn], ...] = (
    ("exact-il-signature", _exact),
    ("exact-signature", _declared),
    ("structural-method-shape", _structural),
)
FIELD_ROUNDS: tuple[tuple[w.Basis, KeyFn], ...] = (("field-signature", _field_key),)


def match(left: Sequence[Member], right: Sequence[Member], rounds: Sequence[tuple[w.Basis, KeyFn]]) -> tuple[
    list[tuple[Member, Member, w.Basis]], list[tuple[list[Member], list[Member], w.Basis]], list[Member], list[Member]
]:  # fmt: skip
    """(pairs, ambiguous groups, left only, right only) over the rounds in order."""
    used_left: set[int] = set()
    used_right: set[int] = set()
    pairs: list[tuple[Member, Member, w.Basis]] = []
    ambiguous: list[tuple[list[Member], list[Member], w.Basis]] = []
    for basis, key in rounds:
        groups_left = _group(left, used_left, key)
        groups_right = _group(right, used_right, key)
        for k, lefts in groups_left.items():
            rights = groups_right.get(k)
            if not rights:
                continue
            used_left.update(i for i, _m in lefts)
            used_right.update(i for i, _m in rights)
            if len(lefts) == 1 and len(rights) == 1:
                pairs.append((lefts[0][1], rights[0][1], basis))
            else:
                ambiguous.append(([m for _i, m in lefts], [m for _i, m in rights], basis))
    only_left = [m for i, m in enumerate(left) if i not in used_left]
    only_right = [m for i, m in enumerate(right) if i not in used_right]
    return pairs, ambiguous, only_left, only_right


def _group(items: Sequence[Member], used: set[int], key: KeyFn) -> dict[str, list[tuple[int, Member]]]:
    groups: dict[str, list[tuple[int, Member]]] = {}
    for index, item in enumerate(items):
        if index in used:
            continue
        k = key(item)
        if k is not None:
            groups.setdefault(k, []).append((index, item))
    return groups


def _side(m: Member | None, method: bool) -> w.MemberSide | None:
    if m is None:
        return None
    return w.MemberSide(
        token=m.token, declaring_type=m.declaring_type, name=m.name,
        signature_sha256=m.signature.raw_sha256,
        normalized_il_sha256=m.body.normalized_il_sha256 if method else None,
    )  # fmt: skip


def dimensions(a: Member, b: Member) -> tuple[w.MethodDimension, ...]:
    """What differs between two matched methods (tokens excluded: they are build-local)."""
    ba, bb = a.body, b.body

    def ops(body: ComparedBody, kind: str) -> list[str | None]:
        return [opcode for opcode, operand_kind in body.anchors if operand_kind == kind]

    checks: tuple[tuple[w.MethodDimension, bool], ...] = (
        ("signature", a.signature.raw_sha256 != b.signature.raw_sha256),
        ("cil", ba.normalized_il_sha256 != bb.normalized_il_sha256 or ba.il_sha256 != bb.il_sha256),
        ("opcode-shape", ba.opcode_counts != bb.opcode_counts),
        ("call-shape", ops(ba, "method") != ops(bb, "method")),
        ("field-shape", ops(ba, "field") != ops(bb, "field")),
        ("exception-shape", len(ba.exception_regions) != len(bb.exception_regions)),
        ("availability", ba.status != bb.status),
    )
    return tuple(name for name, differs in checks if differs)


def _match(
    status: Any, basis: w.Basis, lefts: Sequence[Member] = (), rights: Sequence[Member] = (), cap: int = 50
) -> w.Match:
    confidence: Any = "unknown" if status != "matched" else "high" if basis == "structural-method-shape" else "exact"
    return w.Match(status=status, basis=basis, confidence=confidence,
                   candidate_left_tokens=tuple(m.token for m in lefts[:cap]),
                   candidate_right_tokens=tuple(m.token for m in rights[:cap]))  # fmt: skip


def _item_id(kind: str, left: Member | None, right: Member | None, links: Sequence[str]) -> str:
    tokens = [left.token if left else None, right.token if right else None]
    return f"mmc_{kind}_" + canonical_sha256([kind, list(links), tokens])


def items(
    left: Sequence[Member], right: Sequence[Member], method: bool, links: tuple[str, ...], cap: int
) -> tuple[list[Any], dict[str, int], int]:
    """Every item of one member kind, the matching counts, and how many candidate tokens were cut."""
    pairs, ambiguous, only_left, only_right = match(left, right, METHOD_ROUNDS if method else FIELD_ROUNDS)
    kind = "method" if method else "field"
    out: list[Any] = []
    counts = {"exact-il-signature": 0, "exact-signature": 0, "structural-method-shape": 0, "field-signature": 0}
    cut = 0

    def add(status: str, a: Member | None, b: Member | None, m: w.Match, dims: tuple[Any, ...] = ()) -> None:
        common = dict(item_id=_item_id(kind, a, b, links), status=status, left=_side(a, method), right=_side(b, method),
                      match=m, evidence_links=links, limitations=())  # fmt: skip
        out.append(w.MethodItem(dimensions=dims, **common) if method else w.FieldItem(**common))  # type: ignore[arg-type]

    for a, b, basis in pairs:
        counts[basis] += 1
        dims = dimensions(a, b) if method else (() if a.flags == b.flags else ("signature",))
        add("changed" if dims else "unchanged", a, b, _match("matched", basis), dims)
    for lefts, rights, basis in ambiguous:
        cut += max(len(lefts) - cap, 0) + max(len(rights) - cap, 0)
        add("unknown", None, None, _match("ambiguous", basis, lefts, rights, cap))
    for a in only_left:
        add("removed", a, None, _match("unmatched", "none"))
    for b in only_right:
        add("added", None, b, _match("unmatched", "none"))
    return out, {**counts, "ambiguous": len(ambiguous), "unmatched": len(only_left) + len(only_right)}, cut


def _side_facts(evidence_id: str, r: ComparedSide) -> w.CompareSide:
    return w.CompareSide(
        evidence_id=evidence_id, artifact_sha256=r.artifact_sha256, mvid=r.module.mvid,
        module_name=r.module.name, metadata_status=r.metadata_status, methods_total=len(r.methods),
        fields_total=len(r.fields),
    )  # fmt: skip


def _complete(r: ComparedSide) -> bool:
    return bool(r.coverage_state == "complete") and not any(": " in t and " of " in t for t in r.limitations)


def compare(
    left_id: str, left: ComparedSide, right_id: str, right: ComparedSide, limits: w.CompareLimits
) -> w.ComparisonResult:
    links = (left_id, right_id)
    cap = limits.max_candidates
    methods, method_counts, cut_m = items(left.methods, right.methods, True, links, cap)
    fields, field_counts, cut_f = items(left.fields, right.fields, False, links, cap)
    kept_methods, kept_fields = methods[: limits.max_method_matches], fields[: limits.max_field_matches]
    every = methods + fields
    summary = {
        s: sum(1 for i in every if i.status == s) for s in ("unchanged", "changed", "added", "removed", "unknown")
    }
    omitted = (len(methods) - len(kept_methods), len(fields) - len(kept_fields), cut_m + cut_f)
    status: Any = "truncated" if any(omitted) else "complete-within-inputs" if _complete(left) and _complete(right) else "partial"  # fmt: skip
    limitations = [
        "Members are matched by content (signature and CIL tuple hashes), then by declared signature, then by "
        "structural shape; tokens are build-local and never matched. Unchanged CIL does not establish unchanged "
        "runtime behaviour (callees, reflection and native code may differ)."
    ]
    if status == "partial":
        limitations.append("An input was partial or a page of members: members missing from it read as added/removed.")
    return w.ComparisonResult(
        schema_version=1, comparison_id="mmc_" + canonical_sha256(["managed-member-comparison", list(links)]),
        algorithm=w.Algorithm(name="rea-managed-member-comparison", version=1, token_identity="build-local",
                              name_matching="not-used"),
        left=_side_facts(left_id, left), right=_side_facts(right_id, right), summary=w.CompareSummary(**summary),
        matching=w.Matching(exact_il_signature=method_counts["exact-il-signature"],
                            exact_signature=method_counts["exact-signature"],
                            structural_method_shape=method_counts["structural-method-shape"],
                            field_signature=field_counts["field-signature"],
                            ambiguous=method_counts["ambiguous"] + field_counts["ambiguous"],
                            unmatched=method_counts["unmatched"] + field_counts["unmatched"]),
        methods=tuple(kept_methods), fields=tuple(kept_fields),
        coverage=w.CompareCoverage(status=status, left_status=left.coverage_state,
                                   right_status=right.coverage_state, omitted_methods=omitted[0],
                                   omitted_fields=omitted[1], omitted_candidates=omitted[2]),
        evidence_links=links, limitations=tuple(limitations),
    )  # fmt: skip
