"""Typed wire records: each tool's arguments and result, and the schemas derived from them."""
