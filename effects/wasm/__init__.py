"""WASM effects: Debian WABT (wasm-validate, wasm-objdump, wasm2wat) run as owned, bounded processes."""
