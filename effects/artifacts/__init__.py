"""Artifact readers: ZIP family (incl. CRX), ASAR (+ .asar.unpacked), tar (gz/bz2/xz/zst), ar/.deb, directories,
nested containers. `walker` does the IO of one traversal, `archives` lists each format's members, `streams`
holds the stream plumbing, and `handlers` answers the InventoryArtifact and ExtractArtifact effects; every
decision is made by the pure `rea.artifacts.traversal`.
"""

from effects.artifacts.handlers import HANDLERS, extract, inventory

__all__ = ["HANDLERS", "extract", "inventory"]
