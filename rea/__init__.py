"""REA: reverse engineer anything. The pure core: records, identity, sessions, catalog, programs."""

__version__ = "0.1.0"


def __getattr__(name: str):
    """`from rea import compare_artifacts`: the pure artifact comparison, imported on first use."""
    if name in ("compare_artifacts", "compare_inventories"):
        from rea.artifacts import compare

        return getattr(compare, name)
    raise AttributeError(f"module 'rea' has no attribute {name!r}")
