"""The generic family: the command line's commands that serve every tool and prompt (rea.generic.family)."""
