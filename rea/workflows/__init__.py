"""Workflow programs, one module per tool family; PROGRAMS maps every catalog tool to its program."""

from typing import Any
from collections.abc import Callable, Mapping

from rea.catalog import BY_NAME
from rea.workflows import artifacts as _artifacts
from rea.workflows import javascript as _javascript
from rea.workflows import layout as _layout
from rea.workflows import wasm as _wasm
from rea.workflows import native as _native
from rea.workflows import session_tools as _session
from rea.workflows import views as _views

_FAMILIES = (_session, _native, _artifacts, _javascript, _layout, _wasm, _views)

PROGRAMS: Mapping[str, Callable[..., Any]] = {name: fn for f in _FAMILIES for name, fn in f.PROGRAMS.items()}
assert set(PROGRAMS) == set(BY_NAME), f"tools without exactly one program: {set(PROGRAMS) ^ set(BY_NAME)}"
