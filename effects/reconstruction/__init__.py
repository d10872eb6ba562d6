"""Handlers of the reconstruction family (IO only)."""
