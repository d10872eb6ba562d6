"""The one list of families (rea.families): every declaration is listed, names what exists, and is cheap to import."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import tomllib
from pathlib import Path

from rea.families import FAMILIES, TYPED

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("angr", "lief", "androguard", "tree_sitter", "dnfile", "numpy", "zstandard", "mcp", "anyio")


def test_every_family_declaration_is_in_the_one_list():
    declared = {p.parent.name for p in (ROOT / "rea").glob("*/family.py")}
    listed = {f.name for f in FAMILIES}
    assert declared <= listed
    for name in declared:
        assert importlib.import_module(f"rea.{name}.family").FAMILY in FAMILIES


def test_every_named_module_exports_what_its_registry_reads():
    for family in FAMILIES:
        for module in family.contracts:
            loaded = importlib.import_module(module)
            # CLI_COMMANDS (hand-written commands) is optional: a row declares its own command (ToolContract.cli)
            assert isinstance(loaded.TOOLS, tuple) and isinstance(getattr(loaded, "CLI_COMMANDS", ()), tuple), module
            assert bool(loaded.TOOLS) <= (family.toolset is not None), f"{module}: tools need a toolset"
        for module in family.programs:
            assert importlib.import_module(module).PROGRAMS, module
        for module in family.commands:
            assert importlib.import_module(module).COMMANDS, module


def test_every_declared_command_is_derived_and_reaches_its_tool():
    """A row's `rea` subcommand is built by the one builder from its schema and declaration: its positionals
    and sent arguments are tool arguments, and the command runs that tool last."""
    from effects.commandline import FAMILY_COMMANDS
    from effects.derived_commands import derived_command
    from rea.catalog import DECLARED_COMMANDS

    names = {c.name for c in FAMILY_COMMANDS}
    for _, contract in DECLARED_COMMANDS:
        assert contract.cli is not None and contract.cli.name in names, contract.name
        properties = contract.input_schema.get("properties", {})
        assert contract.cli.taken() <= set(properties), contract.name
        assert {a.argument for a in contract.cli.aliases} <= set(properties), contract.name
        assert derived_command(contract).name == contract.cli.name


def test_the_typed_scope_names_existing_paths_once():
    assert len(TYPED) == len(set(TYPED))
    assert [p for p in TYPED if not (ROOT / p).exists()] == []


def test_the_typed_scope_leaves_no_module_of_rea_or_effects_out():
    """mypy strict checks the whole of both packages: a new module is typed from its first line, and no
    pyproject exclude takes one back out."""
    modules = [*(ROOT / "rea").rglob("*.py"), *(ROOT / "effects").rglob("*.py")]
    outside = [m for m in modules if not any(m.is_relative_to(ROOT / p) for p in TYPED)]
    assert outside == []
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["mypy"]
    assert mypy.get("strict") is True and "exclude" not in mypy


def test_importing_the_list_imports_no_handler_engine_or_server():
    """The list is read at startup by the catalog, the interpreter and the CLI: it must stay this cheap."""
    probe = (
        "import json, sys\n"
        "import rea.families\n"
        f"print(json.dumps([m for m in sys.modules if m.split('.')[0] in {HEAVY!r} or m.startswith('effects')]))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == []


def test_the_program_table_answers_every_tool_by_its_own_family():
    """Each family's program modules answer exactly the tools its contracts declare, so loading the table by
    family (on a tool's first call) gives the catalog's tools, each once, as loading it whole did."""
    from rea.catalog import BY_NAME
    from rea.workflows.table import DERIVED, OWNER, PROGRAMS, family_programs

    seen: set[str] = set()
    for family in FAMILIES:
        built = family_programs(family)
        assert not seen & set(built), family.name
        seen |= set(built)
        assert all(OWNER[name] is family for name in built), family.name
    assert seen == set(BY_NAME) == set(PROGRAMS) and len(PROGRAMS) == len(BY_NAME)
    assert set(DERIVED) <= seen and all(callable(PROGRAMS[name]) for name in BY_NAME)


def test_a_call_imports_only_its_family_programs_and_any_program_module_imports_first():
    """The first native call imports the session and native programs (and the shared views), not every
    family's; and a family's program module imports first (the table is not built by the package)."""
    probe = (
        "import json, sys\n"
        "from rea.workflows.table import PROGRAMS\n"
        "PROGRAMS['open_binary'], PROGRAMS['emulate_native_function']\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.endswith('.programs') or '.programs.' in m or m.startswith('rea.workflows.'))))\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    loaded = set(json.loads(out.stdout))
    native = {m for f in FAMILIES if f.name in ("session_tools", "native", "views") for m in f.programs}
    assert native <= loaded
    others = {m for f in FAMILIES if f.name not in ("session_tools", "native", "views") for m in f.programs}
    assert not loaded & others, loaded & others
    for module in ("rea.wasm.programs", "rea.managed.programs", "rea.views.programs"):
        first = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True, cwd=ROOT)
        assert first.returncode == 0, first.stderr
