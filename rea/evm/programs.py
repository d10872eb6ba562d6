"""Programs of the EVM family: inspect_evm_interface (the carrier is read in the effect; the rest is pure)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from rea.effect_types import Program, ToolProgram
from rea.errors import ReaError
from rea.evidence import Provider, Subject, create_evidence
from rea.evm.bytecode import EOF_MAGIC, decode_carrier
from rea.evm.effects import CarrierFacts, ReadEvmCarrier
from rea.evm.interface import Interface, interface_of
from rea.evm.records import EvmArgs
from rea.program import Context, must, need, recorded, refusable, refuse, typed
from rea.session import Session
from rea.wire.convert import to_wire

LIMITATIONS = (
    "Selectors, argument types and state mutability are inferred from the bytecode, not read from a source ABI.",
    "Names and signatures are not looked up; no chain, RPC or explorer is contacted.",
    "Arguments without a cleanup read as uint256 (bytes32 and int256 look the same); dynamic ones read as bytes "
    "(string and arrays look the same).",
    "Runtime or init code, deployment authenticity and hardfork are unknown; nothing is executed.",
)
PROVIDER = Provider(id="rea-evm", name="REA EVM disassembler", version="1")


def _unsupported(path: str) -> ReaError:
    return ReaError(
        code="capability_unavailable",
        message=f"{path!r} holds an EOF (EF00) container; only legacy EVM bytecode is read.",
        details={"path": path, "reason": "eof_container_unsupported"},
        action="Select legacy runtime bytecode.",
    )


def _result(facts: CarrierFacts, args: EvmArgs, code: bytes, found: Interface) -> dict[str, object]:
    return {
        "artifact": {"path": facts.path, "sha256": facts.sha256, "bytes": len(facts.data), "encoding": args.encoding},
        "bytecode": {
            "sha256": hashlib.sha256(code).hexdigest(),
            "bytes": len(code),
            "hex": code.hex(),
            "digest_algorithm": "sha256",
            "kind": "unknown",
            "deployment_authenticity": "unknown",
            "hardfork": "unknown",
        },
        "evidence_kind": "inferred",
        "functions": [
            {
                "selector": f.selector,
                "bytecode_offset": f.bytecode_offset,
                "dispatch": "abi",
                "inferred_arguments": f.inferred_arguments,
                "inferred_state_mutability": f.inferred_state_mutability,
                "unknowns": list(f.unknowns),
            }
            for f in found.functions
        ],
        "discovery_completeness": "unknown",
        "runtime_execution": "not-performed",
        "diagnostics": {"stdout": "", "stderr": "", "truncated": False},
        "instructions": found.instructions,
        "unknowns": list(found.unknowns) + (["the code ends inside a PUSH immediate"] if found.truncated_push else []),
        "limitations": list(LIMITATIONS),
    }


@typed
@refusable
def inspect_evm_interface(session: Session, args: EvmArgs, ctx: Context) -> Program:
    facts: CarrierFacts = yield from need(ReadEvmCarrier(path=args.path))
    code = must(decode_carrier(facts.data, args.encoding))
    if code.startswith(EOF_MAGIC):
        refuse(_unsupported(args.path))
    result = _result(facts, args, code, interface_of(code))
    name = args.path.rsplit("/", 1)[-1] or args.path
    return recorded(
        session,
        create_evidence(
            provider=PROVIDER,
            operation="inspect_evm_interface",
            parameters=to_wire(args),
            normalized_result=result,
            subject=Subject(name=name, sha256=facts.sha256, format="file", architecture=None, local_path=args.path),
            confidence="inferred",
            limitations=list(LIMITATIONS),
        ),
    )


# cast: @typed programs read their record, which the gate passes (rea.program.typed); ToolProgram names a mapping
PROGRAMS: Mapping[str, ToolProgram] = {"inspect_evm_interface": inspect_evm_interface}
