"""WebAssembly modules: WABT's reports parsed into records, glue literals associated, views. Pure."""
