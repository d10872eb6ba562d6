"""The views family's command line: `rea inspect-analysis-view` (its one tool needs no handler of its own)."""
