"""REA: reverse engineer anything. The pure core: records, identity, sessions, catalog, programs."""

__version__ = "0.1.0"
