"""EVM bytecode: the interface a contract's dispatcher exposes, read without running it."""
