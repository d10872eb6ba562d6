"""`rea setup` / `rea uninstall` decided as values: which edit each client config needs, the new
bytes, and the agent skill's text. The effects side reads the files, locks, backs up and renames."""
