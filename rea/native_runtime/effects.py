"""The runtime observation effect: launch the open target under LLDB as an owned process and record entries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs


@attrs.frozen(kw_only=True)
class ObserveNativeCalls:
    """Launch `path` (its digest must still be `sha256`) under LLDB with the bridge request; the facts come back."""

    path: str
    sha256: str
    request: Mapping[str, Any]
