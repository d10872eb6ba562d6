"""Handlers of the Apple artifacts family (reads bounded files; the parsing is pure, in rea.apple_artifacts)."""
