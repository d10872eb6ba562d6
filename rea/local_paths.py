"""The one rule for host paths an agent hands us: absolute, and free of invisible tricks.

A relative path would resolve against whatever directory the MCP client started the
server in, so it is refused, never guessed. Control characters and bidirectional
overrides (U+202E and friends) make a name read differently from what it is, so a
path holding one is refused too. The rule is advertised as a JSON Schema pattern,
so an agent can read it from tools/list and the validator enforces the same text.
"""

from __future__ import annotations

import re

# POSIX /..., Windows C:\... or C:/..., UNC \\server\...; then no C0/C1 control
# characters and no bidirectional marks, embeddings, overrides or isolates.
_ROOT = r"^(?:/|[A-Za-z]:[\\/]|\\\\)"
# A lookahead, not `[^...]*$`: Python's `$` also matches before a final newline.
LOCAL_PATH_PATTERN = _ROOT + r"(?![\s\S]*[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069])"
_LOCAL_PATH = re.compile(LOCAL_PATH_PATTERN)
_ABSOLUTE = re.compile(_ROOT)

LOCAL_PATH_ACCEPTED = (
    "an absolute local path (for example /tmp/target.bin or C:\\rea\\target.bin) "
    "without control or bidirectional-override characters"
)


def is_absolute_path(path: str) -> bool:
    """Absolute in POSIX, Windows-drive or UNC form: no working directory needed to resolve it."""
    return _ABSOLUTE.match(path) is not None


def is_local_path(path: str) -> bool:
    """The whole rule: absolute and free of control and bidirectional-override characters."""
    return _LOCAL_PATH.match(path) is not None


def local_path_problem(path: str) -> str:
    """Say which half of the rule a refused path breaks."""
    if not is_absolute_path(path):
        return "is relative (it would resolve against the server's working directory)"
    return "holds a control or bidirectional-override character"
