"""Findings derived from traced dylib edges, and what the static dyld model leaves undecided."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

LIMITATIONS = (
    "LC_LAZY_LOAD_DYLIB loads are resolved but their images are not traversed: dyld loads them on first use.",
    "Slices follow dyld's graded architectures (an x86_64h process also loads x86_64); the arm64 fallback of "
    "arm64e processes without pointer authentication is not modeled.",
    "Absolute install names and rpaths lie outside the analyzed root and are not evaluated; /usr/lib and "
    "/System libraries usually come from the dyld shared cache, which is not read.",
    "Leaf and relative install names depend on dyld's fallback paths, DYLD_* variables and the working "
    "directory: they stay undetermined.",
    "An image reached by several chains is loaded once per process, with the rpath stack and conditionality of "
    "the first chain; a later load of the same install name reuses it.",
    "Code-signing checks that can refuse a found image (library validation, hardened runtime) and dylib "
    "compatibility versions are not evaluated.",
    "@loader_path is the image's symlink-resolved path within the analyzed root.",
)


def _unresolved(edge: Mapping[str, Any], index: int) -> dict[str, Any]:
    lazy = edge["command"] == "LC_LAZY_LOAD_DYLIB"
    what = "lazily loaded " if lazy else "weak dependency " if edge["weak"] else ""
    missing = f"No candidate for {what}{edge['install_name']} exists in the analyzed root"
    when = f". {edge['loader']} loads only conditionally; if it loads, " if edge["loader_conditional"] else "; "
    if lazy:
        kind, then = "lazy-load-unresolved", "dyld loads it on first use, which fails unless it is supplied elsewhere."
    elif edge["weak"]:
        kind, then = "weak-load-unresolved", "dyld continues without it."
    else:
        kind = "required-load-unresolved"
        then = (
            f"dyld would fail to launch {edge['root']} ({edge['architecture']}) unless the image is supplied elsewhere."
        )
    return {"kind": kind, "edge_index": index, "image": edge["loader"], "basis": "derived",
            "explanation": f"{missing}{when}{then}"}  # fmt: skip


def _shadowed(edge: Mapping[str, Any], index: int) -> dict[str, Any] | None:
    """An @rpath load found after absent earlier candidates: a file placed there would be loaded instead."""
    outcomes = [c["outcome"] for c in edge["candidates"]]
    if "resolved" not in outcomes:
        return None
    at = outcomes.index("resolved")
    earlier = [c["path"] for c in edge["candidates"][:at] if c["source"] == "rpath" and c["outcome"] == "absent"]
    if not earlier:
        return None
    return {
        "kind": "earlier-rpath-candidate-absent",
        "edge_index": index,
        "image": edge["loader"],
        "basis": "derived",
        "explanation": (
            f"dyld tries {', '.join(earlier)} before {edge['resolution']['image']}: a compatible Mach-O placed at an "
            "earlier path would be loaded instead (library validation, which could refuse it, is not evaluated; "
            "see inspect_signature)."
        ),
    }


def findings(edges: Sequence[Mapping[str, Any]], roots: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Any]:
    out: list[Any] = []
    for index, edge in enumerate(edges):
        if edge["resolution"]["status"] == "unresolved":
            out.append(_unresolved(edge, index))
        shadow = _shadowed(edge, index)
        if shadow is not None:
            out.append(shadow)
    for image, chosen in roots:
        environment = chosen.get("dyld_environment") or []
        if environment:
            role = (
                "sets dyld environment variables through LC_DYLD_ENVIRONMENT; the search paths they request are "
                "not modeled"
                if chosen.get("file_type") == "execute"
                else "holds LC_DYLD_ENVIRONMENT, which dyld reads only from a main executable"
            )
            out.append(
                {
                    "kind": "dyld-environment-present",
                    "edge_index": None,
                    "image": image,
                    "basis": "derived",
                    "explanation": f"{image} ({chosen['architecture']}) {role}: {', '.join(environment)}.",
                }
            )
    return out
