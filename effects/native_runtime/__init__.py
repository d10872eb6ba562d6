"""observe_native_calls: Debian LLDB launches the open target as an owned process and records entries."""
