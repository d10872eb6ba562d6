"""The artifact graph family, pure: facts in, content-addressed graphs, comparisons and views out."""

from typing import Any

__all__ = ["build_inventory", "compare_artifacts", "compare_inventories", "parse_inventory"]


def __getattr__(name: str) -> Any:
    """The graph and comparison load on first use: the catalog (and so every server start) needs only the
    vocabulary in `rea.artifacts.model`."""
    if name in ("compare_artifacts", "compare_inventories"):
        from rea.artifacts import compare

        return getattr(compare, name)
    if name == "build_inventory":
        from rea.artifacts import graph

        return graph.build_inventory
    if name == "parse_inventory":
        from rea.artifacts import inventory_parsing

        return inventory_parsing.parse_inventory
    raise AttributeError(f"module 'rea.artifacts' has no attribute {name!r}")
