"""The artifact graph family, pure: facts in, content-addressed graphs, comparisons and views out."""

from rea.artifacts.compare import compare_artifacts, compare_inventories
from rea.artifacts.graph import build_inventory, parse_inventory

__all__ = ["build_inventory", "compare_artifacts", "compare_inventories", "parse_inventory"]
