"""Managed (.NET) assemblies: identity, members, native boundaries, from CLI metadata alone."""
