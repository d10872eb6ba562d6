"""Wire records of the reconstruction family, one module per tool group (claims, coverage, ledger)."""
