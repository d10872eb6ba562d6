"""The session family's programs, one module per tool group: status, target, bundles, unknowns."""
