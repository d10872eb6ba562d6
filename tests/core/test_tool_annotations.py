"""Annotations follow from effect flags by one rule, over the whole catalog, on every surface."""

from __future__ import annotations

import itertools
import json
import subprocess

import anyio
import pytest

from rea.catalog import CATALOG
from rea.catalog.annotations import EFFECT_HINTS, annotations_from_effects
from rea.catalog.contract import EFFECTS, ToolContract
from rea.javascript.contract import application as javascript_tools
from rea.native.annotations import EDITS
from support import clean_env, rea_command

CHANGES = set(EFFECTS) - {"idempotent"}  # every other effect changes something, session state included
DISCARDS = {"mayDiscardData", "executesForeignCode", "mutatesDevice"}
JAVASCRIPT = {c.name for c in javascript_tools.TOOLS}


def expected_hints(effects: frozenset[str]) -> dict[str, bool]:
    """The contract's rules, written out independently of the table they check."""
    return {
        "readOnlyHint": not effects & CHANGES,
        "destructiveHint": bool(effects & DISCARDS),
        "idempotentHint": "idempotent" in effects,
        "openWorldHint": bool(effects & {"launchesProcess", "accessesNetwork"}),
    }


def test_the_rule_covers_the_closed_vocabulary_and_every_combination():
    assert set(EFFECT_HINTS) == set(EFFECTS)
    for n in range(len(EFFECTS) + 1):
        for combo in itertools.combinations(EFFECTS, n):
            derived = annotations_from_effects(combo)
            hints = expected_hints(frozenset(combo))
            assert {
                "readOnlyHint": "read_only" in derived,
                "destructiveHint": "destructive" in derived,
                "idempotentHint": "idempotent" in derived,
                "openWorldHint": "open_world" in derived,
            } == hints, combo


ANNOTATION_EDITS = sorted(EDITS)  # overwriting or clearing analyst metadata
# the contract's mutatesDevice tools: push, install, uninstall, start, stop
ADB_MUTATING = {
    "push_adb_file",
    "install_adb_package",
    "uninstall_adb_package",
    "start_adb_app",
    "start_adb_activity",
    "stop_adb_app",
}


def test_every_catalog_tool_derives_its_hints_from_its_effects():
    for contract in CATALOG:
        assert contract.mcp_annotations() == expected_hints(contract.effects), contract.name
        if contract.result_kind == "evidence":  # recording Evidence changes session state
            assert "mutatesSession" in contract.effects and not contract.mcp_annotations()["readOnlyHint"]
    assert all(not c.mcp_annotations()["readOnlyHint"] for c in CATALOG if c.name in JAVASCRIPT)
    destructive = {c.name for c in CATALOG if c.mcp_annotations()["destructiveHint"]}
    # they drop the ledger / replace a file / overwrite or clear analyst annotations / drive a foreign app's UI /
    # reset a live page's V8 counters (mayDiscardData, as 6.x declares) / run the target's own code under LLDB
    # / drive a page REA does not own / change an attached Android device
    assert destructive == {
        "close_binary",
        "export_evidence_bundle",
        *ANNOTATION_EDITS,
        "capture_native_ui_scenario",
        "observe_web_execution",
        "observe_native_calls",
        *ADB_MUTATING,
        "capture_browser_scenario",
        "capture_electron_scenario",
        "capture_process_scenario",  # runs the executable it is given, which may change the files it can reach
    }


def test_an_evidence_tool_cannot_forget_that_it_records():
    with pytest.raises(ValueError, match="mutatesSession"):
        ToolContract(
            name="x",
            title="X",
            description="x",
            surface="session",
            input_schema={},
            output_schema={},
            effects={"idempotent"},
            result_kind="evidence",
        )


@pytest.mark.slow
def test_tools_list_and_cli_capabilities_carry_the_derived_hints():
    from mcp_client import connect

    async def main():
        async with connect() as s:
            return (await s.list_tools()).tools

    listed = {t.name: t.annotations.model_dump(by_alias=True) for t in anyio.run(main)}
    by_name = {c.name: c for c in CATALOG}
    for name, hints in listed.items():
        assert {k: hints[k] for k in expected_hints(frozenset())} == expected_hints(by_name[name].effects), name
    assert not any(listed[n]["readOnlyHint"] for n in JAVASCRIPT)

    cli = subprocess.run(
        [*rea_command(), "capabilities", "--format", "json"], capture_output=True, text=True, env=clean_env()
    )
    assert cli.returncode == 0, cli.stderr
    for group in json.loads(cli.stdout)["tool_availability"]["groups"]:
        for name in group["names"]:
            hints = expected_hints(by_name[name].effects)
            assert set(group["annotations"]) == {
                a for a, h in zip(("read_only", "destructive", "idempotent", "open_world"), hints.values()) if h
            }, name
