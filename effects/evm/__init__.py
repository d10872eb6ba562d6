"""Reading EVM bytecode carriers (IO for rea.evm)."""
