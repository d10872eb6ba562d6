"""Apple artifacts: keyed archives, compiled Interface Builder files, asset catalogs and application graphs."""
