"""The bridge scan's reading of DEX bytecode: which calls load native code or join JavaScript to Java, and
the constant each passes. Pure: the worker (effects.android.worker) hands over the instructions androguard
decoded; this module only reads their names and operands."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

# the calls the bridge scan looks for: method reference -> (kind, index of the string argument register)
BRIDGE_CALLS = {
    "Ljava/lang/System;->loadLibrary(Ljava/lang/String;)V": ("load_library", 0),
    "Ljava/lang/System;->load(Ljava/lang/String;)V": ("load", 0),
    "Landroid/webkit/WebView;->addJavascriptInterface(Ljava/lang/Object;Ljava/lang/String;)V": (
        "javascript_interface",
        2,
    ),
    "Landroid/webkit/WebView;->loadUrl(Ljava/lang/String;)V": ("webview_load_url", 1),
}
NOT_WRITING = ("invoke-", "if-", "return", "throw", "goto", "switch", "packed-switch", "sparse-switch", "fill-array")


def method_calls(instructions: Iterable[Any]) -> list[dict[str, Any]]:
    """One linear pass over a method's instructions (androguard's, read by their name and operands): the
    string constant and the new-instance type each register holds when a bridge call passes it (an argument
    computed otherwise is null)."""
    held: dict[int, tuple[str, str]] = {}
    found = []
    for ins in instructions:
        name, operands = ins.get_name(), ins.get_operands()
        registers = [o[1] for o in operands if o[0] == 0]
        if name.startswith("invoke-"):
            target = str(operands[-1][2]).replace(" ", "") if operands and len(operands[-1]) > 2 else ""
            if target in BRIDGE_CALLS:
                kind, at = BRIDGE_CALLS[target]
                value = held.get(registers[at]) if at < len(registers) else None
                row = {"kind": kind, "argument": value[1] if value and value[0] == "string" else None}
                if kind == "javascript_interface":
                    obj = held.get(registers[1]) if len(registers) > 1 else None
                    row["bridge_class"] = obj[1] if obj and obj[0] == "type" else None
                found.append(row)
            continue
        if name.startswith("const-string") and registers:
            held[registers[0]] = ("string", str(operands[-1][2]))
        elif name == "new-instance" and registers:
            held[registers[0]] = ("type", str(operands[-1][2]))
        elif name.startswith("move-object") and len(registers) == 2:
            moved = held.get(registers[1])
            held.pop(registers[0], None) if moved is None else held.__setitem__(registers[0], moved)
        elif registers and not name.startswith(NOT_WRITING):
            held.pop(registers[0], None)
    return found
