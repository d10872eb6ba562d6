"""Programs of the WebAssembly family: inspect_wasm_artifact (WABT runs in the effect; parsing and views are pure)."""

from __future__ import annotations

from collections.abc import Mapping

from rea.effect_types import Program, ToolProgram
from rea.evidence import Provider, Subject, create_evidence
from rea.program import Context, ReportProgress, must, need, refusable, typed
from rea.session import Session
from rea.views.programs import deliver
from rea.wasm.build import wasm_result
from rea.wasm.model import OUTPUT_BUDGET_BYTES, TIMEOUT_MS, InspectWasm
from rea.wasm.records import WasmArgs
from rea.wire.convert import to_wire


@typed
@refusable
def inspect_wasm_artifact(session: Session, args: WasmArgs, ctx: Context) -> Program:
    yield ReportProgress(phase="inspecting wasm", message=args.path)
    facts = yield from need(
        InspectWasm(
            path=args.path,
            glue_paths=args.glue_paths,
            candidate_paths=args.candidate_paths,
            max_wat_inline_units=args.max_wat_inline_units,
        )
    )
    result = wasm_result(facts, TIMEOUT_MS, OUTPUT_BUDGET_BYTES)
    artifact = result.artifact
    evidence = must(
        create_evidence(
            provider=Provider(id="wabt", name="WABT", version=result.tool_profile.release),
            operation="inspect_wasm_artifact",
            # delivery detail never reaches WABT, so the source Evidence id is the same either way
            parameters={k: v for k, v in to_wire(args).items() if k != "detail"},
            normalized_result=to_wire(result),
            subject=Subject(
                name=artifact.path.rsplit("/", 1)[-1],
                sha256=artifact.sha256,
                format="wasm",
                architecture=None,
                local_path=artifact.path,
            ),
            limitations=result.limitations,
        )
    )
    return deliver(session, evidence, args.detail)


PROGRAMS: Mapping[str, ToolProgram] = {"inspect_wasm_artifact": inspect_wasm_artifact}
