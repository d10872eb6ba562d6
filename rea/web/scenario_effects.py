"""The scenario runner's effect: drive one page through declared actions within declared origins.

The program has checked every destination, id and secret reference; the handler (effects/web/
scenario.py) resolves secrets from the server environment, launches or connects, runs the
actions, and answers redacted facts for the pure core to classify.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


@attrs.frozen(kw_only=True)
class RunScenario:
    """Run `args` (capture_browser_scenario's, defaults filled) within `origins`."""

    operation: str
    args: Mapping[str, Any]
    origins: tuple[str, ...]
