"""The session family: the target binding, the Evidence ledger and bundles, residual unknowns (rea.session_tools.family)."""
