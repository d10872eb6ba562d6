"""The analysis profile each deep-analysis provider commits to (rea.native.providers binds it): what its
engine, loader, CFG recovery and decompiler are set to, so a changed setting is a new profile digest."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def angr_profile_parameters(version: str) -> dict[str, Any]:
    return {
        "engine": {"name": "angr", "version": version},
        "loader": {"auto_load_libs": False, "load_debug_info": False, "addresses": "link-time"},
        "cfg": {
            "algorithm": "CFGFast",
            "normalize": True,
            "data_references": True,
            "cross_references": False,
            "resolve_indirect_jumps": True,
        },
        "decompiler": {"name": "angr.analyses.Decompiler", "options": "default"},
        # what the snapshot records (block successors, unresolved call sites, metadata function starts, Go
        # pclntab, folded fragments, strings in every encoding): a new shape is a new profile
        "snapshot": {"schema": 3},
        # CFG recovery that raises is retried once with this profile, then answered from metadata
        "cfg_fallback": {"normalize": False, "data_references": False, "resolve_indirect_jumps": False},
    }


def ghidra_profile_parameters(version: str | None) -> dict[str, Any]:
    return {
        "engine": {"name": "ghidra", "version": version},
        "loader": {"bridge": "pyghidra", "project": "temporary", "addresses": "link-time"},
        "analysis": {"auto_analysis": "default analyzers", "block_model": "BasicBlockModel"},
        "decompiler": {"name": "ghidra.app.decompiler.DecompInterface", "options": "default", "timeout_s": 60},
        "snapshot": {"schema": 1},
    }


PROFILE_PARAMETERS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "angr": angr_profile_parameters,
    "ghidra": ghidra_profile_parameters,
}
