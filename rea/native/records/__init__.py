"""The native family's wire records (argument and result records), one module per tool group."""
