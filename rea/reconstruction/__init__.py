"""Reconstruction: pure derivations over supplied Evidence (claims, behaviour changes, correlations, coverage, ledgers)."""
