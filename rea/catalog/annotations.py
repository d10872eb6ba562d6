"""MCP tool annotations derived from a tool's effect flags, by one table.

A family declares only what its tool may do (rea.catalog.contract.ToolEffect);
the four MCP hints follow from that, so no tool can claim readOnlyHint while it
records Evidence. The rules are the contract's ("Request scope and local
effects") and the reference's derivation:

- readOnly: no effect that changes anything, session state included (recording
  additive Evidence is mutatesSession, so an analysis call is not read-only);
- destructive: may discard data (overwrite, clear, replace files, drop session
  state), runs code REA does not own, or changes an attached device;
- idempotent: the idempotent flag itself;
- openWorld: reaches past REA's own data: starts a process or uses the network.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# effect -> the annotations it rules out (read_only) or implies (the others); keyed by every
# member of rea.catalog.contract.ToolEffect (ToolContract checks that no effect lacks a row)
EFFECT_HINTS: Mapping[str, frozenset[str]] = {
    "accessesNetwork": frozenset({"not_read_only", "open_world"}),
    "changesUiState": frozenset({"not_read_only"}),
    "executesForeignCode": frozenset({"not_read_only", "destructive"}),
    "idempotent": frozenset({"idempotent"}),
    "launchesProcess": frozenset({"not_read_only", "open_world"}),
    "mayDiscardData": frozenset({"not_read_only", "destructive"}),
    "mutatesDevice": frozenset({"not_read_only", "destructive"}),
    "mutatesSession": frozenset({"not_read_only"}),
    "mutatesTarget": frozenset({"not_read_only"}),
    "writesFilesystem": frozenset({"not_read_only"}),
}


def annotations_from_effects(effects: Iterable[str]) -> frozenset[str]:
    """The true members of the annotation vocabulary for a tool with these effects."""
    implied = frozenset().union(*(EFFECT_HINTS[e] for e in effects))
    derived = implied - {"not_read_only"}
    return derived if "not_read_only" in implied else derived | {"read_only"}
