"""Contract of the EVM family (inspect_evm_interface)."""

from __future__ import annotations

from rea.evm.records import EvmArgs, EvmInterface
from rea.wire.tool import evidence_tool

INSPECT_EVM_INTERFACE = evidence_tool(
    "inspect_evm_interface",
    "Inspect EVM Interface",
    (
        "Read local EVM bytecode (raw bytes or hex) offline and infer its interface: the dispatcher's "
        "function selectors, argument types from calldata reads and state mutability (payable, nonpayable, "
        "view, pure), each an inference; what could not be decided is listed in unknowns. Never executes."
    ),
    args=EvmArgs,
    result=EvmInterface,
    examples=[{"path": "/artifacts/runtime.hex", "encoding": "hex"}],
    surface="artifact-provider",
    effects={"mutatesSession", "idempotent"},
)

CLI_COMMANDS: tuple[str, ...] = ()
TOOLS = (INSPECT_EVM_INTERFACE,)
