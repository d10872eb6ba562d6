"""Wire records of inspect_evm_interface: the REA 6.x shape (domain/evm/evmInterface).

The reference runs EVMole in a worker; we read the same facts with our own pure
disassembler (rea.evm.interface), so `diagnostics` is empty and `unknowns` (our extra)
names what the walk could not see.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field, local_path

SHA256 = "^[a-f0-9]{64}$"


@attrs.frozen(kw_only=True)
class EvmArgs:
    path: str = local_path("Local bytecode file; never executed")
    encoding: Literal["raw", "hex"] = field("raw bytes, or hex (optional 0x, outer ASCII whitespace)")


@attrs.frozen(kw_only=True)
class EvmCarrier:
    path: str = field("The file read", minLength=1)
    sha256: str = field("SHA-256 of the file's bytes as stored", pattern=SHA256)
    bytes: int = field("File size", minimum=0)
    encoding: Literal["raw", "hex"] = field("How its bytes were decoded")


@attrs.frozen(kw_only=True)
class EvmBytecode:
    sha256: str = field("SHA-256 of the decoded bytecode (not the Keccak code hash)", pattern=SHA256)
    bytes: int = field("Decoded size", minimum=0)
    hex: str = field("The decoded bytecode, lowercase hex", pattern="^(?:[0-9a-f]{2})*$")
    digest_algorithm: Literal["sha256"] = field("Always sha256")
    kind: Literal["unknown"] = field("Runtime or init code: not decided")
    deployment_authenticity: Literal["unknown"] = field("No chain lookup is made")
    hardfork: Literal["unknown"] = field("Not decided")


@attrs.frozen(kw_only=True)
class EvmFunction:
    selector: str = field("4-byte selector from the dispatcher", pattern="^0x[0-9a-f]{8}$")
    bytecode_offset: int = field("Body offset the dispatcher jumps to", minimum=0)
    dispatch: Literal["abi", "fallback"] = field("abi: a selector comparison")
    inferred_arguments: str | None = field("Comma-separated argument types inferred from calldata reads")
    inferred_state_mutability: str | None = field("payable, nonpayable, view or pure, inferred")
    unknowns: tuple[str, ...] = field("What this function's walk could not see")


@attrs.frozen(kw_only=True)
class EvmDiagnostics:
    stdout: str = field("Always empty (no worker)")
    stderr: str = field("Always empty (no worker)")
    truncated: bool = field("Always false")


@attrs.frozen(kw_only=True)
class EvmInterface:
    artifact: EvmCarrier = field("The carrier file")
    bytecode: EvmBytecode = field("The decoded bytecode")
    evidence_kind: Literal["inferred"] = field("Candidates are inferences")
    functions: tuple[EvmFunction, ...] = field("Function candidates in dispatcher order")
    discovery_completeness: Literal["unknown"] = field("Empty candidates do not prove no interface")
    runtime_execution: Literal["not-performed"] = field("Nothing is executed")
    diagnostics: EvmDiagnostics = field("Worker output (none)")
    instructions: int = field("Instructions disassembled", minimum=0)
    unknowns: tuple[str, ...] = field("What the analysis could not decide")
    limitations: tuple[str, ...] = field("What the inference cannot tell")
