"""JSON with comments (tsconfig.json, jsconfig.json) to plain JSON: `//` and `/* */` comments and
trailing commas go, strings stay byte for byte (a URL's `//` is not a comment). Pure text in, text
out, so any JSON parser can read the result; plain JSON passes through unchanged.

`blank` is the same normalisation keeping every offset: comments and trailing commas become
spaces (line breaks kept), so spans found by a JSON reader in the blanked text are the spans of
the original, and an edit made at them keeps every comment (VS Code's mcp.json is JSONC)."""

from __future__ import annotations

import re

# A string is matched before a comment can start inside it; an unterminated string or comment is left
# alone, so the JSON parser reports it where it is.
_COMMENT = re.compile(r'"(?:[^"\\\n]|\\.)*"|//[^\r\n]*|/\*.*?\*/', re.S)
_TRAILING_COMMA = re.compile(r'"(?:[^"\\\n]|\\.)*"|,(?=\s*[}\]])')


def _blank(match: re.Match[str]) -> str:
    """A comment becomes whitespace that keeps its line breaks (parse errors keep their line numbers)."""
    text = match.group(0)
    if text.startswith('"'):
        return text
    return "\n" * text.count("\n") or " "


def _drop_comma(match: re.Match[str]) -> str:
    return match.group(0) if match.group(0).startswith('"') else ""


def to_json(text: str) -> str:
    """The JSON text of a JSONC document."""
    return _TRAILING_COMMA.sub(_drop_comma, _COMMENT.sub(_blank, text))


def _spaces(text: str) -> str:
    return "".join(c if c in "\r\n" else " " for c in text)


def blank(text: str) -> str:
    """`to_json` with every offset kept: the result has the original's length and line breaks."""
    no_comments = _COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else _spaces(m.group(0)), text)
    return _TRAILING_COMMA.sub(lambda m: m.group(0) if m.group(0).startswith('"') else " ", no_comments)
