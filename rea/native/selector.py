"""The one parser of a deep-analysis provider choice.

open_binary's provider_id, REA_ANALYSIS_PROVIDER and the CLI's --provider all go through
`parse_selector`, and `choose` applies the one precedence (request, then environment, then
auto), so the three boundaries accept exactly the same spellings and refuse the rest with a
canonical error that names what would be accepted.
"""

from __future__ import annotations

import re
from typing import Literal

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, configuration_invalid, invalid_request

AUTO = "auto"
# the reference's analysisProviderIdSchema (a lowercase letter, then [a-z0-9-], at most 64) or auto
SELECTOR_PATTERN = "^(auto|[a-z][a-z0-9-]{0,63})$"
ACCEPTED = (
    "auto, or a provider id: a lowercase letter followed by lowercase letters, digits or '-', "
    "at most 64 characters (angr, ghidra, hopper, ida)"
)
Boundary = Literal["request", "environment", "cli"]
Source = Literal["request", "environment", "auto"]
_FIELDS = {"request": "provider_id", "cli": "provider"}


def parse_selector(raw: str, boundary: Boundary) -> Result[str | None, ReaError]:
    """A concrete provider id, None for auto, or the boundary's canonical refusal."""
    if re.fullmatch(SELECTOR_PATTERN, raw):
        return Success(None if raw == AUTO else raw)
    if boundary == "environment":
        return Failure(configuration_invalid("REA_ANALYSIS_PROVIDER", raw, ACCEPTED))
    name = _FIELDS[boundary]
    flag = "--provider" if boundary == "cli" else name
    return Failure(invalid_request(f"{flag} {raw!r} is not a provider choice.", field=name, accepted=ACCEPTED))


@attrs.frozen(kw_only=True)
class Choice:
    """What selection starts from: a concrete id (None: the auto policy) and where it came from."""

    provider_id: str | None
    source: Source


def choose(requested: str | None, environment: str | None) -> Choice:
    """The precedence: the request's concrete id, then REA_ANALYSIS_PROVIDER's, then auto.
    Both inputs are already parsed (None or auto: no choice at that level)."""
    if requested not in (None, AUTO):
        return Choice(provider_id=requested, source="request")
    if environment not in (None, AUTO):
        return Choice(provider_id=environment, source="environment")
    return Choice(provider_id=None, source="auto")
