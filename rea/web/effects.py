"""The web family's effect: one bounded observation of a caller's browser through CDP.

The handler (effects/web) connects, asks only passive DevTools commands for the named
`kind`, and answers plain facts; every policy decision (origins, redaction, limits,
completeness) is made on those facts in the pure core.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import attrs

ObservationKind = Literal["targets", "page", "webmcp", "screenshot", "listeners", "execution", "session"]


@attrs.frozen(kw_only=True)
class ObserveBrowser:
    """Observe `target_id` (or only list targets) at a validated loopback `endpoint` URL."""

    kind: ObservationKind
    operation: str
    endpoint: str
    target_id: str | None = None
    options: Mapping[str, Any] = attrs.field(factory=dict)
