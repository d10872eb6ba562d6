"""Layout effects: lief readers of ELF, PE and Mach-O (and, beside them, the WABT runner for wasm)."""
