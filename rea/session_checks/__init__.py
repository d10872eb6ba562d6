"""Session checks: two exported Evidence bundles compared record by record, and an unknown's resolution
checked against the Evidence it cites (compare_bundles, verify_unknown_resolution; toolset `session`)."""
