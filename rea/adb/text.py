"""The adb device commands' readable text (each command is declared on its catalog row)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def render(value: Mapping[str, Any]) -> str:
    """An adb tool's reply as text: each result field, lists one JSON row a line (at most 500), then the Evidence id."""
    result = value.get("normalized_result", value)
    lines = []
    for key, item in result.items():
        if key == "client":
            lines.append(f"client: {item['binary_path']} {item['version']}")
        elif isinstance(item, list):
            lines.append(f"{key}: {len(item)}")
            lines += [f"  {json.dumps(row, sort_keys=True)}" for row in item[:500]]
        else:
            lines.append(f"{key}: {json.dumps(item) if isinstance(item, dict) else item}")
    lines += [f"limitation: {t}" for t in value.get("limitations", [])]
    return "\n".join([*lines, f"evidence: {value.get('evidence_id', '-')}"])
