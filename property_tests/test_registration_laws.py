"""Laws of rea.registrations: the expected vector is aligned, any change is stale, bad shapes are invalid."""

from __future__ import annotations

import json

from hypothesis import assume, given
from hypothesis import strategies as st

from prop_support import json_value
from rea.registrations import (
    MAX_CONFIG_BYTES,
    MODULE_ARGS,
    SCRIPT_ARGS,
    SERVER_KEY,
    SERVERS_KEY,
    STATES,
    Entry,
    Installation,
    PathFacts,
    classify,
    entry_of,
    read_entry,
    snippet,
)

formats = st.sampled_from(("json", "toml"))
segments = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), min_size=1, max_size=8)
abs_paths = st.lists(segments, min_size=1, max_size=4).map(lambda parts: "/" + "/".join(parts))
arg_lists = st.lists(st.text(st.characters(blacklist_categories=("Cs",)), max_size=8), max_size=4).map(tuple)


@st.composite
def installations(draw) -> Installation:
    interpreter = draw(abs_paths)
    if draw(st.booleans()):
        script = draw(abs_paths.filter(lambda p: p != interpreter))
        return Installation(interpreter=interpreter, script=script, script_real=draw(st.just(script) | abs_paths))
    return Installation(interpreter=interpreter)


def facts_for(installation: Installation) -> dict[str, PathFacts]:
    """The filesystem as the effects side would report it: both launchers exist."""
    facts = {
        installation.interpreter: PathFacts(
            absolute=True, normalized=installation.interpreter, real=installation.interpreter + "-real"
        )
    }
    if installation.script:
        facts[installation.script] = PathFacts(
            absolute=True, normalized=installation.script, real=installation.script_real
        )
    return facts


def run(fmt: str, command: tuple[str, ...] | None, installation: Installation, facts: dict[str, PathFacts]):
    entry = Entry(state="found", command=command) if command else Entry(state="missing", detail="none")
    return classify(client="c", config_path="/cfg", fmt=fmt, entry=entry, installation=installation, facts=facts)


@given(formats, installations())
def test_the_expected_vector_is_aligned(fmt, installation):
    result = run(fmt, installation.expected, installation, facts_for(installation))
    assert result.state == "aligned" and result.remediation is None and result.live_server == "unknown"


@given(formats, installations())
def test_the_snippet_reads_back_as_the_expected_vector_and_is_aligned(fmt, installation):
    text = snippet(fmt, installation.expected).encode()
    entry = read_entry(fmt, text)
    assert entry == Entry(state="found", command=installation.expected)
    result = classify(
        client="c", config_path="/cfg", fmt=fmt, entry=entry, installation=installation, facts=facts_for(installation)
    )
    assert result.state == "aligned"


@given(formats, installations(), arg_lists)
def test_other_args_are_stale(fmt, installation, args):
    expected = installation.expected
    assume(args != expected[1:])
    result = run(fmt, (expected[0], *args), installation, facts_for(installation))
    assert result.state == "stale" and result.remediation and result.command == (expected[0], *args)


@given(formats, installations(), abs_paths, st.booleans())
def test_another_or_vanished_executable_is_stale(fmt, installation, other, exists):
    assume(other not in (installation.interpreter, installation.script, installation.script_real))
    facts = facts_for(installation)
    facts[other] = PathFacts(absolute=True, normalized=other, real=other if exists else None)
    result = run(fmt, (other, *installation.expected[1:]), installation, facts)
    assert result.state == "stale"
    assert ("does not exist" in result.detail) == (not exists)


@given(formats, installations())
def test_a_vanished_launcher_is_stale(fmt, installation):
    facts = facts_for(installation)
    head = installation.expected[0]
    facts[head] = PathFacts(absolute=True, normalized=head, real=None)
    assert run(fmt, installation.expected, installation, facts).state == "stale"


@given(formats, installations(), segments)
def test_a_relative_command_is_stale(fmt, installation, name):
    facts = facts_for(installation)
    facts[name] = PathFacts(absolute=False, normalized=name, real=None)
    assume(name not in (installation.interpreter, installation.script))
    assert run(fmt, (name, *installation.expected[1:]), installation, facts).state == "stale"


@given(formats, installations())
def test_a_symlink_to_the_script_is_aligned_but_the_interpreter_is_matched_as_written(fmt, installation):
    link = "/elsewhere/rea-link"
    assume(link not in (installation.interpreter, installation.script))
    facts = facts_for(installation)
    real = installation.script_real if installation.script else installation.interpreter + "-real"
    facts[link] = PathFacts(absolute=True, normalized=link, real=real)
    state = run(fmt, (link, *installation.expected[1:]), installation, facts).state
    assert state == ("aligned" if installation.script else "stale")


@given(formats, st.one_of(st.none(), st.binary(max_size=200)))
def test_any_bytes_are_classified_never_raised(fmt, content):
    entry = read_entry(fmt, content)
    assert entry.state in ("found", "missing", "invalid")
    installation = Installation(interpreter="/py")
    result = classify(client="c", config_path="/cfg", fmt=fmt, entry=entry, installation=installation, facts={})
    assert result.state in STATES
    json.dumps(result.record())


@given(formats, json_value)
def test_any_document_is_classified_never_raised(fmt, document):
    entry = entry_of(fmt, document)
    assert entry.state in ("found", "missing", "invalid")
    if entry.state == "found":
        assert all(isinstance(part, str) for part in entry.command) and entry.command[0]


malformed_entries = st.one_of(
    json_value.filter(lambda v: not isinstance(v, dict) and v is not None),
    st.fixed_dictionaries({"command": json_value.filter(lambda v: not (isinstance(v, str) and v))}),
    st.fixed_dictionaries(
        {
            "command": st.just("/bin/rea"),
            "args": json_value.filter(lambda v: not (isinstance(v, list) and all(isinstance(a, str) for a in v))),
        }
    ),
)


@given(formats, malformed_entries)
def test_malformed_entries_are_invalid(fmt, entry):
    entry_state = entry_of(fmt, {SERVERS_KEY[fmt]: {SERVER_KEY: entry}})
    assert entry_state.state == "invalid" and entry_state.command is None
    result = classify(
        client="c",
        config_path="/cfg",
        fmt=fmt,
        entry=entry_state,
        installation=Installation(interpreter="/py"),
        facts={},
    )
    assert result.state == "invalid" and result.command is None and result.remediation


@given(formats, json_value.filter(lambda v: not isinstance(v, dict) and v is not None))
def test_a_non_table_server_section_is_invalid(fmt, servers):
    assert entry_of(fmt, {SERVERS_KEY[fmt]: servers}).state == "invalid"


@given(formats, st.dictionaries(st.text(max_size=6).filter(lambda k: k != SERVER_KEY), json_value, max_size=3))
def test_other_servers_without_rea_are_missing(fmt, servers):
    assert entry_of(fmt, {SERVERS_KEY[fmt]: servers}).state == "missing"
    assert entry_of(fmt, {}).state == "missing"


def test_oversized_and_deeply_nested_content_is_invalid():
    assert read_entry("json", b" " * (MAX_CONFIG_BYTES + 1)).state == "invalid"
    assert read_entry("json", b"[" * 100_000).state == "invalid"
    assert read_entry("toml", b"a = " + b"[" * 100_000).state == "invalid"
    assert read_entry("json", b"\xff\xfe\x00").state == "invalid"


def test_both_launch_forms_are_recognised():
    installation = Installation(interpreter="/venv/bin/python", script="/venv/bin/rea", script_real="/venv/bin/rea")
    facts = facts_for(installation)
    assert run("json", ("/venv/bin/rea", *SCRIPT_ARGS), installation, facts).state == "aligned"
    assert run("json", ("/venv/bin/python", *MODULE_ARGS), installation, facts).state == "aligned"
