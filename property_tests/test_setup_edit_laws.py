"""Laws of the setup planner over generated and fuzzed configs: the edit touches only REA's
entry, uninstall inverts setup byte for byte, and hostile bytes are refused, never a crash."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from prop_support import json_keys, json_values
from rea import jsonc
from rea.registrations import Installation, PathFacts
from rea.setup import edits
from rea.setup.plan import Target, plan_setup, plan_uninstall

INSTALL = Installation(interpreter="/opt/py/bin/python3", script="/opt/py/bin/rea", script_real="/opt/py/bin/rea")
COMMAND = INSTALL.expected
FACTS = {COMMAND[0]: PathFacts(absolute=True, normalized=COMMAND[0], real=COMMAND[0])}
LAYOUTS = st.sampled_from([None, 0, 1, 2, 4, "\t", " \t"])
servers = st.dictionaries(
    st.text(max_size=6).filter(lambda k: k != "rea"),
    st.fixed_dictionaries({"command": st.text(max_size=8)}, optional={"args": st.lists(st.text(max_size=4))}),
    min_size=1,
    max_size=4,
)
documents = st.builds(
    lambda head, srv, tail: {**head, "mcpServers": srv, **tail},
    st.dictionaries(json_keys.filter(lambda k: k != "mcpServers"), json_values(), max_size=3),
    servers,
    st.dictionaries(json_keys.filter(lambda k: k != "mcpServers"), json_values(), max_size=3),
)


def target(content: bytes, fmt: str = "json") -> Target:
    return Target(client="cursor", path="/home/u/.cursor/mcp.json", format=fmt, content=content)


@settings(max_examples=150, deadline=None)
@given(documents, LAYOUTS)
def test_setup_then_uninstall_gives_back_the_bytes(document, indent):
    original = json.dumps(document, indent=indent, ensure_ascii=False).encode()
    change = plan_setup(target(original), INSTALL, {})
    assert change.action == "add" and change.content is not None, change.detail
    written = json.loads(change.content)
    assert written["mcpServers"]["rea"] == {"command": COMMAND[0], "args": list(COMMAND[1:])}
    assert list(written["mcpServers"])[:-1] == list(document["mcpServers"])
    assert {k: v for k, v in written.items() if k != "mcpServers"} == {
        k: v for k, v in document.items() if k != "mcpServers"
    }
    removed = plan_uninstall(target(change.content))
    assert removed.action == "remove" and removed.content == original


@settings(max_examples=150, deadline=None)
@given(documents, LAYOUTS, st.data())
def test_fuzzed_configs_are_refused_or_edited_correctly(document, indent, data):
    text = bytearray(json.dumps(document, indent=indent).encode())
    for _ in range(data.draw(st.integers(1, 4))):
        if text:
            text[data.draw(st.integers(0, len(text) - 1))] = data.draw(st.integers(0, 255))
    for fmt in ("json", "toml"):
        for plan in (plan_setup(target(bytes(text), fmt), INSTALL, {}), plan_uninstall(target(bytes(text), fmt))):
            assert plan.action in ("add", "update", "remove", "none", "refuse")
            if plan.action == "refuse":
                assert plan.error().code == "configuration_invalid" and plan.detail
            elif plan.content is not None:
                again = plan_setup(target(plan.content, fmt), INSTALL, FACTS)
                assert again.action == ("none" if plan.action != "remove" else "add"), again.detail


@given(st.text(max_size=40))
def test_toml_round_trip_keeps_other_text(comment):
    comment = comment.replace("\n", " ").replace("\r", " ")
    original = f"# {comment}\nmodel = 'o3'\n\n[mcp_servers.docs]\ncommand = \"npx\"\n".encode()
    try:
        original.decode()
        import tomllib

        tomllib.loads(original.decode())
    except (UnicodeDecodeError, ValueError):
        return
    change = plan_setup(target(original, "toml"), INSTALL, {})
    assert change.action == "add" and change.content is not None
    assert change.content.startswith(original)
    removed = plan_uninstall(target(change.content, "toml")).content
    assert removed is not None  # tomlkit may leave the blank line it put before a table appended last
    assert removed == original or removed == original + b"\n"
    assert edits.fresh_text("toml", COMMAND).startswith("[mcp_servers.rea]\n")


_COMMENTS = st.sampled_from(["", " // note\n", " /* a */", "\n  // line\n", " /* multi\n line */ "])


def _jsonc_text(document: dict, draw) -> str:
    """A VS Code-style JSONC rendering: comments between members and optional trailing commas."""

    def render(value, depth):
        if isinstance(value, dict) and value:
            pad = "  " * (depth + 1)
            items = [f"{pad}{json.dumps(k)}:{draw(_COMMENTS)} {render(v, depth + 1)}" for k, v in value.items()]
            comma = "," if draw(st.booleans()) else ""
            return "{\n" + ",\n".join(items) + comma + draw(_COMMENTS) + "\n" + "  " * depth + "}"
        return json.dumps(value)

    return draw(_COMMENTS) + render(document, 0) + "\n"


@settings(max_examples=150, deadline=None)
@given(documents, st.data())
def test_jsonc_setup_keeps_every_comment_and_uninstall_gives_back_the_bytes(document, data):
    vscode = {**{k: v for k, v in document.items() if k != "mcpServers"}, "servers": document["mcpServers"]}
    original = _jsonc_text(vscode, data.draw).encode()
    change = plan_setup(target(original, "vscode"), INSTALL, {})
    assert change.action == "add" and change.content is not None, change.detail
    written = change.content.decode()
    assert json.loads(jsonc.to_json(written))["servers"]["rea"] == {
        "type": "stdio",
        "command": COMMAND[0],
        "args": list(COMMAND[1:]),
    }
    # every comment of the original is still there, in order
    comments = [m.group(0) for m in jsonc._COMMENT.finditer(original.decode()) if not m.group(0).startswith('"')]
    kept = [m.group(0) for m in jsonc._COMMENT.finditer(written) if not m.group(0).startswith('"')]
    assert kept == comments
    removed = plan_uninstall(target(change.content, "vscode"))
    assert removed.action == "remove" and removed.content == original
