"""What a feature trace's seed names (rea.javascript.trace): the application nodes whose fields hold the
literal, and, for a string seed, the modules whose code (the semantic graph's literals and names) holds it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from rea.javascript.records.arguments import FeatureSeed
from rea.javascript.records.trace import SeedMatch

_SEED_NODE_KINDS = {
    "module": ("module", "bundled-module", "original-source-module", "html-document"),
    "route": ("route",),
    "channel": ("ipc-channel",),
    "ipc-channel": ("ipc-channel",),
    "url": ("url", "protocol"),
    "api": ("context-bridge-api",),
    "native-export": (),
}
_SEED_FIELDS = {
    "module": ("path",),
    "route": ("route", "label"),
    "channel": ("channel",),
    "ipc-channel": ("channel",),
    "url": ("url", "scheme"),
    "api": ("key", "members"),
    "native-export": (),
}
_BASES: dict[str, Literal["node-id", "label", "property"]] = {"node_id": "node-id", "label": "label"}
_TEXT_FIELDS = ("label", "path", "channel", "route", "url", "key", "scheme", "specifier", "name", "members")


def match_mode(seed: FeatureSeed) -> str:
    """The reference's default: containment for string seeds (and our url alias), exact otherwise."""
    return seed.match or ("contains" if seed.kind in ("string", "url") else "exact")


def _matches(text: Any, value: str, match: str, case_sensitive: bool) -> bool:
    if not isinstance(text, str):
        return False
    if not case_sensitive:
        text, value = text.lower(), value.lower()
    return text == value if match == "exact" else value in text


def _field_hit(node: Mapping[str, Any], name: str, value: str, match: str, case: bool) -> bool:
    got = node.get(name)
    if name == "route" and got is not None:
        return _matches(got, value, match, case) or _matches(node.get("label", "")[6:], value, match, case)
    if name == "members":
        key = node.get("key")
        return any(_matches(m, value, match, case) or _matches(f"{key}.{m}", value, match, case) for m in (got or ()))
    return _matches(got, value, match, case)


def _seed_match(node_id: str, kind: str, basis: Literal["node-id", "label", "property"], hit: str) -> SeedMatch:
    # `field` is the attribute's alias (rea.wire.schema.field passes it to attrs), which mypy's attrs plugin
    # does not see through the helper
    return SeedMatch(node_id=node_id, kind=kind, basis=basis, field=hit)  # type: ignore[call-arg]


def seed_matches(nodes: Iterable[Mapping[str, Any]], seed: FeatureSeed) -> list[SeedMatch]:
    """Every node the seed names, with the field that matched, in node-id order."""
    kind, value, case = seed.kind, seed.value, seed.case_sensitive
    match = match_mode(seed)
    found = []
    for node in nodes:
        if kind == "node-id":  # the wire id, or the readable key it is derived from
            fields: Sequence[str] = ("node_id", "label")
        elif kind == "string":
            fields = _TEXT_FIELDS
        elif node["subkind"] in _SEED_NODE_KINDS[kind]:
            fields = _SEED_FIELDS[kind]
        else:
            continue
        hit = next((f for f in fields if _field_hit(node, f, value, match, case)), None)
        if hit is not None:
            basis = _BASES.get(hit, "property")
            found.append(_seed_match(node["node_id"], node["kind"], basis, hit))
    return sorted(found, key=lambda m: m.node_id)


_CODE_KINDS = frozenset(
    ("literal", "function", "binding", "parameter", "call-site", "property-slot", "event", "boundary")
)


def with_code_matches(matches: list[SeedMatch], semantic: Mapping[str, Any], seed: FeatureSeed) -> list[SeedMatch]:
    """A string seed also matches the code of every parsed file: string literals and names (functions,
    bindings, parameters, callees such as `dialog.showSaveDialog`, properties, events, channels) of the
    semantic graph; each match stands for the module it is in (field `code:<kind>`)."""
    match, case = match_mode(seed), seed.case_sensitive
    seen = {m.node_id for m in matches}
    extra = []
    for n in semantic.get("nodes", ()):
        if n["kind"] not in _CODE_KINDS or not n["application_node_ids"]:
            continue
        module = n["application_node_ids"][0]
        if module in seen or not _matches(n["label"], seed.value, match, case):
            continue
        seen.add(module)
        extra.append(_seed_match(module, "javascript-module", "property", f"code:{n['kind']}"))
    return sorted(matches + extra, key=lambda m: m.node_id)
