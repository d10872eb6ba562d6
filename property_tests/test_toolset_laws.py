"""Laws of rea.catalog.toolsets: a selection is the union of its names plus the session tools, the
parser accepts exactly the advertised names whatever the spacing and order, an unknown name is a
configuration error that lists every valid one, and `rea setup --toolsets` registers and keeps a choice."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from rea.catalog import CATALOG, FAMILY_OF, toolsets
from rea.catalog.availability import TargetState
from rea.catalog.projection import grouped_availability
from rea.registrations import Entry, Installation, PathFacts, classify, split_toolsets, with_toolsets
from rea.setup.plan import Target, plan_setup

names = st.sampled_from(toolsets.NAMES)
name_lists = st.lists(names, min_size=1, max_size=5)
spaces = st.sampled_from(["", " ", "  ", "\t"])
SESSION = toolsets.ALWAYS_TOOLS  # the session family's own tools: every selection includes them


@given(name_lists, st.lists(spaces, min_size=10, max_size=10))
def test_parse_is_select_of_the_names_whatever_the_spacing(chosen, pads):
    raw = ",".join(f"{pads[i % 10]}{n}{pads[(i + 1) % 10]}" for i, n in enumerate(chosen))
    parsed = toolsets.parse(raw)
    assert isinstance(parsed, Success)
    selection = parsed.unwrap()
    assert selection == toolsets.select(tuple(dict.fromkeys(chosen)))
    if "all" in chosen:
        assert selection == toolsets.ALL and selection.complete
    else:
        expected = frozenset().union(*(toolsets.members(n) for n in chosen))
        assert selection.tools == expected and selection.names == tuple(dict.fromkeys(chosen))
    assert SESSION <= selection.tools <= frozenset(FAMILY_OF)
    assert [c.name for c in selection.contracts(CATALOG)] == [c.name for c in CATALOG if c.name in selection.tools]
    again = toolsets.parse(toolsets.normalized(selection)).unwrap()
    assert again == selection  # what `rea setup` writes parses back to the same selection


@given(name_lists, name_lists)
def test_selection_is_monotone(left, right):
    both = toolsets.select(tuple(dict.fromkeys(left + right)))
    assert toolsets.select(tuple(dict.fromkeys(left))).tools <= both.tools


@given(
    name_lists,
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=","), min_size=1, max_size=12),
)
def test_an_unknown_name_is_a_configuration_error_listing_every_valid_name(chosen, bogus):
    if bogus.strip() in toolsets.NAMES or not bogus.strip():
        return
    raw = ",".join([*chosen, bogus])
    for source in (toolsets.VARIABLE, toolsets.FLAG):
        parsed = toolsets.parse(raw, source)
        assert isinstance(parsed, Failure)
        error = parsed.failure()
        assert error.code == "configuration_invalid" and error.details["unknown"] == [bogus.strip()]
        assert error.details["variable"] == source and error.details["toolsets"] == list(toolsets.NAMES)
        assert all(name in error.message for name in toolsets.NAMES)


@settings(max_examples=25, deadline=None)
@given(name_lists)
def test_availability_lists_the_whole_catalog_and_marks_what_the_toolsets_leave_out(chosen):
    selection = toolsets.select(tuple(dict.fromkeys(chosen)))
    grouped = grouped_availability(CATALOG, state=TargetState(), client_features=frozenset(), selection=selection)
    assert grouped["total"] == len(CATALOG)
    excluded = {n for g in grouped["groups"] if g["reason"] == "toolset_excluded" for n in g["names"]}
    assert excluded == set(FAMILY_OF) - selection.tools
    for group in grouped["groups"]:
        if group["reason"] == "toolset_excluded":
            assert not group["available"] and toolsets.VARIABLE in group["remediation"]
    assert selection.record()["excluded_tools"] == len(excluded)


@given(st.sampled_from(sorted(FAMILY_OF)), name_lists)
def test_a_refusal_names_a_toolset_that_has_the_tool(tool, chosen):
    selection = toolsets.select(tuple(dict.fromkeys(chosen)))
    if selection.exposes(tool):
        return
    error = toolsets.excluded(tool, selection)
    owners = error.details["toolsets"]
    assert error.code == "capability_unavailable" and error.details["reason"] == "toolset_excluded"
    assert owners[0] == FAMILY_OF[tool] and owners[-1] == "all"
    assert all(toolsets.select((owner,)).exposes(tool) for owner in owners)
    fixed = toolsets.parse(",".join((*selection.names, owners[0]))).unwrap()
    assert fixed.exposes(tool)  # the remediation's toolsets really expose it


INSTALL = Installation(interpreter="/opt/py/bin/python3", script="/opt/py/bin/rea", script_real="/opt/py/bin/rea")
FACTS = {"/opt/py/bin/rea": PathFacts(absolute=True, normalized="/opt/py/bin/rea", real="/opt/py/bin/rea")}


def _target(content: bytes | None) -> Target:
    return Target(client="cursor", path="/home/u/.cursor/mcp.json", format="json", content=content)


@given(name_lists.map(lambda n: toolsets.normalized(toolsets.select(tuple(dict.fromkeys(n))))))
def test_setup_registers_keeps_and_resets_a_toolset(chosen):
    wanted = None if chosen == "all" else chosen
    created = plan_setup(_target(None), INSTALL, FACTS, chosen)
    assert created.after == with_toolsets(INSTALL.expected, wanted)
    assert split_toolsets(created.after[1:]) == (INSTALL.expected[1:], wanted)
    assert created.content is not None
    again = plan_setup(_target(created.content), INSTALL, FACTS)  # a re-run without --toolsets keeps it
    assert again.action == "none"
    assert plan_setup(_target(created.content), INSTALL, FACTS, chosen).action == "none"
    reset = plan_setup(_target(created.content), INSTALL, FACTS, "all")
    assert reset.after == INSTALL.expected or (wanted is None and reset.action == "none")
    registration = classify(
        client="cursor",
        config_path="/cfg",
        fmt="json",
        entry=Entry(state="found", command=created.after),
        installation=INSTALL,
        facts=FACTS,
    )
    assert registration.state == "aligned"


@settings(max_examples=30, deadline=None)
@given(st.text(min_size=1, max_size=10).filter(lambda s: isinstance(toolsets.parse(s, toolsets.FLAG), Failure)))
def test_a_registered_toolset_the_server_would_refuse_is_stale(bogus):
    command = with_toolsets(INSTALL.expected, bogus)
    registration = classify(
        client="cursor",
        config_path="/cfg",
        fmt="json",
        entry=Entry(state="found", command=command),
        installation=INSTALL,
        facts=FACTS,
    )
    assert registration.state == "stale" and "--toolsets" in registration.detail
    config = json.dumps({"mcpServers": {"rea": {"command": command[0], "args": list(command[1:])}}}).encode()
    replaced = plan_setup(_target(config), INSTALL, FACTS)  # a re-run drops what the server would refuse
    assert replaced.action == "update" and replaced.after == INSTALL.expected
