"""The native family's catalog rows (TOOLS, CLI_COMMANDS), one module per tool group: the provider's tools, the
surface (images, annotations, bookmarks, the user interface) and the derived analyses."""
