"""The one list of tool families; every registry derives from it.

The catalog (rea.catalog), the program table (rea.workflows), the effect union
(rea.effect_types, checked against this list by tests/core/test_interpreter.py), the
interpreter's lazy handler loading (effects.interpreter) and the command line's family
commands (effects.commandline) all read FAMILIES; mypy's strict scope (TYPED) does not:
it is the whole of rea and effects. A family declares itself once, as FAMILY in
rea/<family>/family.py; adding a family is one line here. Importing this list imports only the family records and
their effect record types (a family names its other modules; rea.family says why).

The order is the first-declared order of the toolsets (rea.catalog.FAMILIES) and the
order of the family commands in `rea --help`.
"""

from rea.adb import family as adb
from rea.android import family as android
from rea.apple_artifacts import family as apple_artifacts
from rea.apple_metadata import family as apple_metadata
from rea.artifacts import family as artifacts
from rea.batch import family as batch
from rea.evm import family as evm
from rea.family import Family
from rea.firmware import family as firmware
from rea.generic import family as generic
from rea.javascript import family as javascript
from rea.layout import family as layout
from rea.managed import family as managed
from rea.native import family as native
from rea.native_runtime import family as native_runtime
from rea.process_capture import family as process_capture
from rea.reconstruction import family as reconstruction
from rea.session_checks import family as session_checks
from rea.session_tools import family as session_tools
from rea.setup import family as setup
from rea.views import family as views
from rea.wasm import family as wasm
from rea.web import family as web
from rea.web_network import family as web_network

FAMILIES: tuple[Family, ...] = (
    session_tools.FAMILY,
    session_checks.FAMILY,
    native.FAMILY,
    artifacts.FAMILY,
    apple_artifacts.FAMILY,
    javascript.FAMILY,
    managed.FAMILY,
    android.FAMILY,
    adb.FAMILY,
    layout.FAMILY,
    apple_metadata.FAMILY,
    native_runtime.FAMILY,
    wasm.FAMILY,
    evm.FAMILY,
    firmware.FAMILY,
    process_capture.FAMILY,
    web_network.FAMILY,
    web.FAMILY,
    reconstruction.FAMILY,
    views.FAMILY,
    generic.FAMILY,
    setup.FAMILY,
    batch.FAMILY,
)
assert len({f.name for f in FAMILIES}) == len(FAMILIES), "family names are unique"

# mypy's strict scope: the whole of both packages, so every module is typed from its first line
# (tests/core/test_families.py: none is left out; tests/core/test_house_style.py and `just typecheck` run it)
TYPED: tuple[str, ...] = ("rea", "effects")
