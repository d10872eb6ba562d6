"""compare_functions: two analyze_function dossiers compared, as Evidence of its own provider."""

from __future__ import annotations

from collections.abc import Mapping

from returns.result import Success

from rea.effect_types import ToolProgram
from rea.errors import invalid_request
from rea.evidence import Evidence, Provider, create_evidence
from rea.native.compare import RUNTIME_NOTICE, compare
from rea.native.records.compare import CompareArgs
from rea.program import Context, Outcome, must, refusable, refuse, typed
from rea.session import Session, record, resolve
from rea.wire.convert import to_wire

COMPARE_PROVIDER = Provider(id="rea-compare", name="REA function comparison", version="1")


def _side(session: Session, args: CompareArgs, side: str) -> list[Evidence]:
    """One side's analyze_function Evidence, inline or retained (the program ends when it is neither, or both)."""
    inline, ids = (args.left, args.left_evidence_ids) if side == "left" else (args.right, args.right_evidence_ids)
    if (inline is None) == (ids is None):
        refuse(
            invalid_request(
                f"compare_functions needs exactly one of {side} and {side}_evidence_ids",
                field=side,
                accepted=f"{side}: inline analyze_function Evidence or a retained reference; or {side}_evidence_ids",
            )
        )
    refs = [inline] if inline is not None else [{"kind": "retained-evidence", "evidence_id": i} for i in ids or ()]
    resolved: list[Evidence] = []
    for index, ref in enumerate(refs):
        evidence = must(resolve(session, ref, side if inline is not None else f"{side}_evidence_ids[{index}]"))
        if evidence.operation != "analyze_function":
            refuse(
                invalid_request(
                    f"{side} is {evidence.operation} Evidence; compare_functions compares analyze_function dossiers",
                    field=side,
                    accepted="Evidence whose operation is analyze_function",
                )
            )
        resolved.append(evidence)
    return resolved


@typed
@refusable
def compare_functions(session: Session, args: CompareArgs, ctx: Context) -> Outcome:
    left, right = _side(session, args, "left"), _side(session, args, "right")
    result = compare(left, right)
    evidence = must(
        create_evidence(
            provider=COMPARE_PROVIDER,
            operation="compare_functions",
            parameters={"left": list(result.left_evidence_ids), "right": list(result.right_evidence_ids)},
            normalized_result=to_wire(result),
            confidence="derived",
            authority="analyst-inference",
            limitations=[RUNTIME_NOTICE],
            evidence_links=[*result.left_evidence_ids, *result.right_evidence_ids],
        )
    )
    retained = record(session, (*left, *right, evidence))
    return Outcome(session=retained, reply=Success(evidence.to_json()))


PROGRAMS: Mapping[str, ToolProgram] = {"compare_functions": compare_functions}
