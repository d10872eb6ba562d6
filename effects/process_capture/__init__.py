"""Process capture handlers: the owned run, its filesystem snapshots and its command shims (all IO)."""
