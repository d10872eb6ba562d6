"""observe_native_calls: what to ask LLDB for, and the observation built from what it reported. Pure."""
