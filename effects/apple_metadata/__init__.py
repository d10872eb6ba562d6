"""IO of the Apple metadata tools: lief locates segments, binds and symbols; the pure core decodes."""
