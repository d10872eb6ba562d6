"""Contracts of the native analyses: trace_feature, inspect_native_api (the angr provider) and
build_call_path (derived from supplied analyze_function Evidence, no provider)."""

from __future__ import annotations

from rea.catalog.cli import Command, Positional, declared
from rea.catalog.contract import ToolContract
from rea.native import text
from rea.native.contract.tools import BINARY, summarized
from rea.native.records import analyses as w
from rea.native.records import emulation as e
from rea.native.records import values as v
from rea.wire.tool import evidence_tool

_READ = {"mutatesSession", "launchesProcess", "idempotent"}
_REF = {"kind": "retained-evidence", "evidence_id": "ev_" + "1" * 64}

TOOLS: tuple[ToolContract, ...] = (
    evidence_tool(
        "trace_feature",
        "Trace Feature",
        (
            "Find a literal in string values and procedure names, then the instructions referencing each "
            "match and their procedures, within an operation budget; truncated and residual_unknowns say what "
            "a budget left unread."
        ),
        args=w.FeatureArgs,
        result=w.FeatureTrace,
        surface="enhanced",
        examples=[{"query": "license", "case_sensitive": False, "limit": 20, "max_operations": 20}],
        effects=_READ,
        needs="provider",
    ),
    evidence_tool(
        "inspect_native_api",
        "Inspect Native API",
        "The calling boundary of one procedure as angr's decompiler recovered it: calling convention, return "
        "type and parameters with their storage (inferred types, marked as reconstruction) and the jump tables "
        "CFGFast resolved in it, slot by slot. An import, a thunk or a procedure over max_instructions answers "
        "an unavailable boundary with the reason and residual unknowns.",
        args=w.NativeApiArgs,
        result=w.NativeApi,
        surface="enhanced",
        examples=[{"procedure": "main", "max_pseudocode_chars": 20000, "max_instructions": 500}],
        effects=_READ,
        needs="provider",
    ),
    summarized(
        evidence_tool(
            "trace_native_values",
            "Trace Native Values",
            (
                "Build a static value-dependency graph seeded at one procedure: angr's reaching definitions give "
                "def-use edges from its parameters and between its instructions; at each resolved call, arguments "
                "bind to the callee's parameters and its return value back, following callees up to max_depth. "
                "Each procedure's facts are retained as native_value_flow Evidence the nodes cite. Budgets cap "
                "depth, procedures, call sites, nodes and edges, and unknowns say what they stopped. Nodes are "
                "paged with offset and limit."
            ),
            args=v.TraceValuesArgs,
            result=v.ValueTrace,
            surface="enhanced",
            examples=[{"procedure": "main", "max_depth": 2, "max_nodes": 2000, "limit": 200}],
            effects=_READ,
            needs="provider",
        ),
        v.TraceValuesArgs,
        v.ValueTrace,
    ),
    evidence_tool(
        "emulate_native_function",
        "Emulate Native Function",
        (
            "Run one procedure of the open binary in angr's emulator (never on the host) on integer, "
            "byte-buffer ({kind: buffer, hex, writable?, size?}) or image-pointer ({kind: pointer, address}) "
            "arguments, within step, time and memory budgets. Returns the return value, each buffer after the "
            "call, the image memory written, the calls made and a status (returned, stopped_at, step_limit, "
            "time_limit, memory_limit, memory_fault, unsupported naming what it cannot emulate, or cancelled "
            "with the partial run kept). Same inputs, same Evidence. REA's own (no REA 6.x counterpart)."
        ),
        args=e.EmulateArgs,
        result=e.Emulation,
        surface="enhanced",
        examples=[
            {
                "procedure": "xor_decode",
                "arguments": [{"kind": "buffer", "hex": "6b6a746a"}, 4, 90],
                "max_steps": 20000,
            }
        ],
        effects=_READ,
        needs="provider",
    ),
    evidence_tool(
        "build_call_path",
        "Build Call Path",
        (
            "Direct-callee paths from start to goal, shortest first and paged, from the analyze_function "
            "Evidence you supply (one per function a path may cross). not_found only after an exhaustive "
            "search; a missing dossier or incomplete callees leave it unknown; truncated when enumeration "
            "was capped."
        ),
        args=w.CallPathArgs,
        result=w.CallPaths,
        surface="enhanced",
        examples=[{"functions": [_REF], "start": {"address": "0x1000"}, "goal": {"address": "0x1040"}}],
        effects={"mutatesSession", "idempotent"},
        needs="nothing",
    ),
)

# build-call-path makes dependent calls and emulate-native-function spells its arguments its own way, so both
# are written by hand (effects.native.analyses_cli)
CLI_COMMANDS = ("build-call-path", "emulate-native-function")
COMMANDS = {
    "trace_feature": Command(
        name="trace-feature",
        help="literal matches in strings and procedure names, traced through their references",
        opens=BINARY,
        positionals=(Positional(argument="query", help="literal text to find in strings and procedure names"),),
        defaults={"case_sensitive": False, "limit": 20, "max_operations": 20},
        render=text.feature,
    ),
    "inspect_native_api": Command(
        name="inspect-native-api",
        help="calling convention, parameters and jump tables of one procedure",
        opens=BINARY,
        positionals=(Positional(argument="procedure", help="procedure start address (0x...) or exact name"),),
        render=text.api,
    ),
    "trace_native_values": Command(
        name="trace-native-values",
        help="value dependencies from one procedure through its calls (angr reaching definitions)",
        opens=BINARY,
        render=text.values,
    ),
}
TOOLS = declared(TOOLS, COMMANDS)
