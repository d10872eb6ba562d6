"""Workflow programs, named by each family (rea.families). The program table (PROGRAMS, every catalog tool to
its program, loaded by family on first use) is rea.workflows.table; importing this package builds nothing,
so any family's program module can be imported first. The table's names are still importable from here."""

from typing import Any

_TABLE_NAMES = frozenset({"PROGRAMS", "DERIVED", "REBINDING", "BindingChanged", "gated", "typed_entry"})


def __getattr__(name: str) -> Any:
    """`from rea.workflows import PROGRAMS` (and the table's other names) reads rea.workflows.table."""
    if name in _TABLE_NAMES:
        from rea.workflows import table

        return getattr(table, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
