"""Toolsets: which part of the catalog one MCP server exposes.

Why: a host puts every listed tool's name, description and input schema into the model's
context before the first call; the whole catalog costs about 225 KB. `REA_MCP_TOOLSETS`
(or `rea mcp --toolsets`) names the part a session needs, and the server lists and
answers only that part. The complete catalog (`all`) stays the default, as the contract
requires.

A name is a family of the catalog (each family in rea.families names its toolset) or a
profile:

- `all`: every tool (the default);
- `triage`: a first look at any kind of target, within 24 tools and 48 KB of context
  (TRIAGE below, chosen tool by tool); its replies name the tools that go further, and a
  call to one of them is refused with the toolset that has it.

Whatever is selected, the session family's tools are in (a server without binary_session or
open_binary cannot be used): ALWAYS_TOOLS, the tools of rea.session_tools.family. The `session`
toolset also holds the session checks (compare_bundles, verify_unknown_resolution), which
only a `session` or `all` selection brings, so the profiles keep their budgets. A family toolset also brings `inspect_analysis_view`: the
family's summaries and oversized replies point to it. Everything here is a function of
the catalog table, so tools/list, the call gate, binary_session and the docs agree.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Callable, Iterable, Mapping, Sequence

import attrs
from returns.result import Failure, Result, Success

from rea.catalog import CATALOG, FAMILIES, FAMILY_OF, ToolContract
from rea.errors import ReaError, configuration_invalid
from rea.session_tools.family import FAMILY as SESSION

VARIABLE = "REA_MCP_TOOLSETS"
FLAG = "--toolsets"
DEFAULT = "all"
ALWAYS = "session"  # the toolset whose lifecycle tools every selection includes
# the session family's own tools: in every selection (the session checks share its toolset, not this rule)
ALWAYS_TOOLS: frozenset[str] = frozenset(
    c.name for module in SESSION.contracts for c in importlib.import_module(module).TOOLS
)
VIEWS = "inspect_analysis_view"  # comes with every family toolset
# The first look at each kind of target, then what leads on: session tools (always in), the native
# index (overview, string -> references -> function, name -> function), layout for any executable
# format and Mach-O, archives and packages, JavaScript applications, APKs, .NET assemblies, wasm
# modules, a live page (targets, then one page) and a HAR/mitmproxy capture.
TRIAGE: tuple[str, ...] = (
    "binary_overview",
    "search_strings",
    "xrefs",
    "search_procedures",
    "analyze_function",
    "inspect_binary_layout",
    "inspect_macho",
    "inspect_artifact",
    "analyze_javascript_application",
    "inspect_android_package",
    "inspect_managed_artifact",
    "inspect_wasm_artifact",
    "list_browser_targets",
    "inspect_web_page",
    "inspect_web_network_capture",
)
TRIAGE_MAX_TOOLS = 24
TRIAGE_MAX_CONTEXT_BYTES = 48 * 1024  # the target for triage
CATALOG_MAX_CONTEXT_BYTES_PER_TOOL = 1536  # the target for the default catalog, on average
PROFILES: tuple[str, ...] = ("all", "triage")
NAMES: tuple[str, ...] = (*PROFILES, *FAMILIES)


def _family_tools(family: str) -> frozenset[str]:
    return frozenset(name for name, owner in FAMILY_OF.items() if owner == family)


def members(name: str) -> frozenset[str]:
    """The tools one toolset name selects, the always-in session tools included."""
    session = ALWAYS_TOOLS
    if name == "all":
        return frozenset(FAMILY_OF)
    if name == "triage":
        return session | frozenset(TRIAGE)
    if name in (ALWAYS, "views"):
        return session | _family_tools(name)
    return session | _family_tools(name) | {VIEWS}


assert set(TRIAGE) <= set(FAMILY_OF), "triage names catalog tools"
assert len(members("triage")) <= TRIAGE_MAX_TOOLS, "triage stays within its tool count"


@attrs.frozen(kw_only=True)
class Selection:
    """The toolsets a server was started with and the tools they expose."""

    names: tuple[str, ...] = (DEFAULT,)
    tools: frozenset[str] = attrs.field(factory=lambda: frozenset(FAMILY_OF))

    @property
    def complete(self) -> bool:
        return self.tools >= frozenset(FAMILY_OF)

    def exposes(self, tool: str) -> bool:
        return tool in self.tools

    def contracts(self, catalog: Iterable[ToolContract] = CATALOG) -> tuple[ToolContract, ...]:
        """The catalog rows tools/list advertises, in catalog order."""
        return tuple(c for c in catalog if c.name in self.tools)

    def record(self) -> dict[str, object]:
        """binary_session.toolsets."""
        return {
            "selected": list(self.names),
            "exposed_tools": len(self.tools),
            "excluded_tools": len(FAMILY_OF) - len(self.tools),
            "accepted": list(NAMES),
        }


ALL = Selection()


def select(names: Sequence[str]) -> Selection:
    """The selection of already validated names; `all` anywhere is the complete catalog."""
    if DEFAULT in names:
        return ALL
    tools: frozenset[str] = frozenset()
    for name in names:
        tools |= members(name)
    return Selection(names=tuple(names), tools=tools)


def accepted_text() -> str:
    return f"a comma-separated list of toolsets from: {', '.join(NAMES)} (default {DEFAULT})"


def parse(raw: str | None, source: str = VARIABLE) -> Result[Selection, ReaError]:
    """`triage`, `native,layout`, ... -> the selection; unset or blank: the complete catalog.

    Names are exact (lower case), separated by commas, with spaces around them ignored; a
    repeated name counts once. An unknown name is a configuration error naming the valid ones."""
    if raw is None or not raw.strip():
        return Success(ALL)
    names = tuple(dict.fromkeys(part.strip() for part in raw.split(",") if part.strip()))
    unknown = [n for n in names if n not in NAMES]
    if unknown:
        error = configuration_invalid(source, raw, accepted_text())
        return Failure(error.with_details(unknown=unknown, toolsets=list(NAMES)))
    return Success(select(names))


def normalized(selection: Selection) -> str:
    """The selection as the text `--toolsets` takes back (what `rea setup` writes)."""
    return ",".join(selection.names)


def toolsets_with(tool: str) -> tuple[str, ...]:
    """The toolset names (families first, then profiles) that expose `tool`, `all` last."""
    found = [name for name in (*FAMILIES, "triage") if tool in members(name)]
    if FAMILY_OF.get(tool) in found:  # its own family first
        found.remove(FAMILY_OF[tool])
        found.insert(0, FAMILY_OF[tool])
    return (*found, DEFAULT)


def remediation(tool: str, selection: Selection) -> str:
    """What to do about a tool this selection leaves out: restart with its family added."""
    wanted = ",".join((*selection.names, toolsets_with(tool)[0]))
    return (
        f"Restart REA with {VARIABLE}={wanted} (or `rea mcp {FLAG} {wanted}`, or `rea setup {FLAG} {wanted}`), "
        f"or with {DEFAULT} for the complete catalog; binary_session.tool_availability lists the tools this "
        "server exposes."
    )


def excluded(tool: str, selection: Selection) -> ReaError:
    """The refusal of a call to a catalog tool that the active toolsets leave out."""
    owners = toolsets_with(tool)
    return ReaError(
        code="capability_unavailable",
        message=(
            f"{tool} is not in this server's toolsets ({', '.join(selection.names)}), which expose "
            f"{len(selection.tools)} of {len(FAMILY_OF)} tools. It is in the toolset {owners[0]}"
            + (f" (also: {', '.join(owners[1:])})." if len(owners) > 1 else ".")
        ),
        details={
            "reason": "toolset_excluded",
            "operation": tool,
            "active_toolsets": list(selection.names),
            "toolsets": list(owners),
        },
        action=remediation(tool, selection),
        restart_required=True,
    )


def context_bytes(definitions: Iterable[Mapping[str, object]]) -> int:
    """What a host puts in the model's context for these tools/list entries: the UTF-8 bytes of
    each {name, description, inputSchema} as compact JSON, summed."""
    return sum(
        len(
            json.dumps(
                {key: d[key] for key in ("name", "description", "inputSchema")},
                ensure_ascii=False,
                separators=(",", ":"),
            ).encode()
        )
        for d in definitions
    )


def overview(definition: Callable[[ToolContract], Mapping[str, object]]) -> dict[str, object]:
    """`rea toolsets`: every accepted name with its tools and what they cost a model's context
    (`definition` is the tools/list projection, rea.catalog.projection.tool_definition)."""
    rows = []
    for name in NAMES:
        contracts = select((name,)).contracts()
        rows.append(
            {
                "name": name,
                "kind": "profile" if name in PROFILES else "family",
                "tool_count": len(contracts),
                "context_bytes": context_bytes(definition(c) for c in contracts),
                "tools": [c.name for c in contracts],
            }
        )
    return {"variable": VARIABLE, "flag": FLAG, "default": DEFAULT, "always": sorted(ALWAYS_TOOLS), "toolsets": rows}
