"""`rea setup` and `rea uninstall`: the command (command.py) and the file writes it makes (files.py)."""
