"""Laws of the package-map readers and the policy evaluator on hostile input: the target Node would pick
for any condition set is always one of the listed leaves (under a chain those conditions satisfy); a
`*` pattern's expansions map back to their files; CSP extraction never raises on arbitrary text."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from effects.javascript.extract import javascript_facts
from rea.javascript import csp
from rea.javascript.resolve import condition_leaves, exports_target, pattern_matches, subpath_map

CONDITION = st.sampled_from(["node", "browser", "import", "require", "default", "module", "types", "deno"])
TARGET = st.sampled_from(["./a.js", "./b.mjs", "./dist/c.cjs", "./x/*.js", "bad", None])
VALUE = st.recursive(
    TARGET,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3),
        st.dictionaries(CONDITION, inner, max_size=4),
    ),
    max_leaves=12,
)
EXPORTS = st.one_of(VALUE, st.dictionaries(st.sampled_from([".", "./a", "./x/*", "./p/"]), VALUE, max_size=4))


@given(EXPORTS, st.frozensets(CONDITION, max_size=5), st.sampled_from([".", "./a", "./x/q", "./p/r.js"]))
def test_nodes_pick_is_always_a_listed_leaf(exports, active, subpath):
    picked = exports_target(exports, subpath, tuple(active))
    if picked is None:
        return
    table = subpath_map(exports)

    def reaches(key: str, target: str) -> bool:
        if "*" in key and "*" in target:
            head, _, tail = target.partition("*")
            return picked.startswith(head) and picked.endswith(tail)
        return picked == target or (key.endswith("/") and picked.startswith(target))

    assert any(
        set(chain) <= set(active) and reaches(key, target)
        for key, value in table.items()
        for chain, target in condition_leaves(value)
    )


@given(st.lists(st.sampled_from(["x/a.js", "x/b/c.js", "x/.js", "y/a.js", "x/a.mjs", "x"]), unique=True))
def test_a_pattern_expansion_names_its_file(files):
    for subpath, path in pattern_matches("", "./x/*", "./x/*.js", files):
        assert path in files and path == "x/" + subpath[len("./x/") :] + ".js"
        assert len(subpath) > len("./x/")  # `*` stands for at least one character


@given(st.text(max_size=300))
def test_policies_never_raise_on_any_text(text):
    source = f"const p = [{text!r}, \"default-src 'self'\"].join('; ');\nh['Content-Security-Policy'] = {text!r};\n"
    facts = javascript_facts(source.encode("utf-8", "surrogatepass"), "javascript", 100_000)
    for policy in facts.get("csp", ()):
        assert policy["form"] in ("header", "joined-array", "literal") and policy["start"] < policy["end"]
    csp.meta_policies(("<meta http-equiv=Content-Security-Policy content='" + text + "'>").encode("utf-8", "replace"))
