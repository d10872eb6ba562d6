"""Laws of the pure application graph: resolution is a function of the tree, ids do not depend on
file order, views page the modules as an exact partition, traces stay inside their limits."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from rea.canonical_json import canonical_sha256
from rea.evidence import Provider, Subject, create_evidence
from rea.javascript.graph import build_graph
from rea.javascript.graph_kinds import DEFAULT_LIMITS
from rea.javascript.ids import edge_id, node_id
from rea.javascript.observations import REFERENCE_KIND
from rea.javascript.record import application_result
from rea.javascript.records.arguments import TraceFeatureArgs, TraceLimits
from rea.javascript.resolve import Resolver, exports_target, normalize
from rea.javascript.trace import trace_feature
from rea.javascript.views import application_view
from rea.wire.convert import structure, to_wire

REFERENCE_KINDS = frozenset(REFERENCE_KIND.values()) | {"unknown"}
SEGMENT = st.sampled_from(["a", "b", "src", "lib", "node_modules", "pkg", "index", "util"])
FILE = st.builds(
    lambda parts, ext: "/".join(parts) + ext,
    st.lists(SEGMENT, min_size=1, max_size=4),
    st.sampled_from([".js", ".mjs", ".ts", ".json", "/index.js"]),
)
SPEC = st.one_of(
    st.builds(lambda p: "./" + p, st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)),
    st.builds(lambda p: "../" + p, st.lists(SEGMENT, min_size=1, max_size=3).map("/".join)),
    st.sampled_from(["fs", "node:path", "electron", "pkg", "pkg/util", "@scope/x", "#internal", "/abs"]),
)


# configs the random trees may carry: an imports map, TypeScript paths and baseUrl, an extends chain
CONFIGS = {
    "package.json": {"parse": "ok", "imports": {"#internal": "./src/index.js", "#*": {"node": "pkg/*"}}},
    "tsconfig.json": {"parse": "ok", "base_url": ".", "paths": {"pkg/*": ["src/*", "lib/*"], "@scope/x": ["a/b.js"]}},
    "a/tsconfig.json": {"parse": "ok", "extends": ["../tsconfig.json", "./tsconfig.json"], "base_url": "b"},
    "a/jsconfig.json": {"parse": "failed", "error": "bad"},
}


MODULE_IDS = st.sampled_from(["1", "2", "3", "726", "./src/a.js", "gone"])
SOURCES = st.sampled_from(
    ["webpack://app/./src/a.js", "../src/b.ts", "../node_modules/pkg/index.js", None, "src/c.js", "../src/a.js"]
)


@st.composite
def bundle_files(draw):
    """A bundle with a module table (webpack or browserify shaped) and a source map with runs, nulls and
    embedded sources, as the effects would report them."""
    modules, start = [], 0
    for key in draw(st.lists(MODULE_IDS, unique=True, max_size=4)):
        size = draw(st.integers(1, 50))
        requires = draw(st.lists(MODULE_IDS, max_size=3, unique=True))
        module = {
            "id": key,
            "start": start,
            "end": start + size,
            "line": 1,
            "column": start,
            "end_line": 1,
            "end_column": start + size,
            "requires": requires,
            "async": draw(st.lists(MODULE_IDS, max_size=1)),
            "exports": draw(st.lists(st.sampled_from(["run", "default"]), unique=True, max_size=2)),
            "chunk_loads": [],
        }
        if draw(st.booleans()):
            module["specifiers"] = {r: f"./{r}" for r in requires}
        modules.append(module)
        start += size + 1
    table = {
        "format": draw(st.sampled_from(["webpack-module-table", "browserify-module-table"])),
        "modules": modules,
        "entry_requires": draw(st.lists(MODULE_IDS, max_size=2)),
        "entry_async": [],
        "modules_omitted": 0,
    }
    sources = draw(st.lists(SOURCES, min_size=1, max_size=5))
    listed = []
    for name in sources:
        entry = {"path": name, "content": None if name is None else "0" * 64}
        if name is not None and draw(st.booleans()):
            entry["original"] = {
                "parse": "ok",
                "imports": [{"kind": "import", "specifier": s, "line": 1} for s in draw(st.lists(SPEC, max_size=3))],
                "exports": [{"name": "x", "form": "esm", "shape": {"type": "literal"}, "line": 1}],
            }
        listed.append(entry)
    runs = [
        [
            draw(st.integers(0, 3)),
            draw(st.integers(0, 200)),
            draw(st.integers(0, len(sources) - 1)),
            draw(st.integers(1, 9)),
        ]
        for _ in range(draw(st.integers(0, 6)))
    ]
    runs.sort()
    bundle = {
        "path": "dist/app.js",
        "parse": "ok",
        "ast_nodes": 1,
        "sha256": "0" * 64,
        "bytes_read": 1,
        "imports": [],
        "bundlers": [draw(st.sampled_from(["webpack", "browserify", "rollup"]))],
        "source_mapping_url": "app.js.map",
    }
    if draw(st.booleans()):
        bundle["bundle_table"] = table
    smap = {
        "path": "dist/app.js.map",
        "parse": "ok",
        "sha256": "0" * 64,
        "bytes_read": 1,
        "version": 3,
        "file": None,
        "source_root": None,
        "sources": listed,
        "sources_omitted": 0,
        "runs": runs,
        "runs_truncated": False,
    }
    return [bundle, smap] if draw(st.booleans()) else [bundle]


@st.composite
def trees(draw):
    files = sorted(set(draw(st.lists(FILE, min_size=1, max_size=25))))
    facts = []
    for path in files:
        if path.endswith((".js", ".mjs", ".ts")):
            imports = [
                {
                    "kind": draw(st.sampled_from(["import", "require", "dynamic-import"])),
                    "specifier": s,
                    "line": i + 1,
                    "start": i * 10,
                    "end": i * 10 + 5,
                }
                for i, s in enumerate(draw(st.lists(SPEC, max_size=5)))
            ]
            calls = [
                {
                    "callee": draw(
                        st.sampled_from(
                            ["ipcMain.handle", "ipcRenderer.invoke", "ipcRenderer.on", "win.webContents.send"]
                        )
                    ),
                    "args": [draw(st.sampled_from(["a", "b", None]))],
                    "line": 1,
                    "start": 0,
                    "end": 1,
                }
                for _ in range(draw(st.integers(0, 2)))
            ]
            facts.append(
                {
                    "path": path,
                    "parse": "ok",
                    "ast_nodes": 1,
                    "sha256": "0" * 64,
                    "bytes_read": 1,
                    "imports": imports,
                    "calls": calls,
                }
            )
    configs = draw(st.lists(st.sampled_from(sorted(CONFIGS)), unique=True))
    facts += [{"path": c, "sha256": "0" * 64, "bytes_read": 1, **CONFIGS[c]} for c in configs]
    bundled = draw(bundle_files()) if draw(st.booleans()) else []
    facts += bundled
    kinds = {
        "package.json": "package-json",
        "tsconfig.json": "tsconfig",
        "a/tsconfig.json": "tsconfig",
        "a/jsconfig.json": "tsconfig",
        "dist/app.js": "javascript",
        "dist/app.js.map": "source-map",
    }
    scan = {
        "root": "/app",
        "kind": "directory",
        "omitted": [],
        "files": sorted(
            (
                {
                    "path": p,
                    "size": 1,
                    "kind": kinds.get(p)
                    or ("javascript" if p.endswith((".js", ".mjs")) else "typescript" if p.endswith(".ts") else "json"),
                }
                for p in {*files, *configs, *(f["path"] for f in bundled)}
            ),
            key=lambda f: f["path"],
        ),
    }
    return scan, facts


def graph(scan, facts):
    return build_graph(scan, facts, DEFAULT_LIMITS, [])


def wired(result):
    """The wire result (what Evidence holds) of a built graph."""
    return application_result(
        result,
        input_path="/app",
        root_sha256="0" * 64,
        inventory=("agm_" + "0" * 64, "0" * 64),
        parsers={},
        policy="fail",
        limitations=[],
    )


@given(trees())
def test_every_edge_joins_recorded_nodes(tree):
    result = graph(*tree)
    ids = {n["id"] for n in result["nodes"]}
    assert len(ids) == len(result["nodes"])
    assert all(e["from"] in ids and e["to"] in ids for e in result["edges"])
    wire = wired(result)["graph"]
    assert [n["node_id"] for n in wire["nodes"]] == [node_id(n["id"]) for n in result["nodes"]]
    assert [n["label"] for n in wire["nodes"]] == [n["id"] for n in result["nodes"]]
    wire_ids = {n["node_id"] for n in wire["nodes"]}
    assert all(e["source_node_id"] in wire_ids and e["target_node_id"] in wire_ids for e in wire["edges"])
    assert len({e["edge_id"] for e in wire["edges"]}) == len(wire["edges"])
    assert set(wire["root_node_ids"]) <= wire_ids
    assert all(n["kind"] in REFERENCE_KINDS and n["observations"][0]["label"] == n["label"] for n in wire["nodes"])


@given(trees(), st.randoms(use_true_random=False))
def test_graph_does_not_depend_on_file_or_fact_order(tree, rnd):
    scan, facts = tree
    shuffled_files, shuffled_facts = list(scan["files"]), list(facts)
    rnd.shuffle(shuffled_files)
    rnd.shuffle(shuffled_facts)
    other = {**scan, "files": sorted(shuffled_files, key=lambda f: f["path"])}
    assert graph(scan, facts) == graph(other, shuffled_facts)


@given(trees(), SPEC)
def test_resolution_is_deterministic_and_lands_on_a_known_file(tree, spec):
    scan, facts = tree
    paths = [f["path"] for f in scan["files"]]
    importer = paths[0]
    first = Resolver(paths, {}).resolve(importer, spec, "import")
    again = Resolver(list(reversed(paths)), {}).resolve(importer, spec, "import")
    assert first == again
    if first[0] == "module":
        assert first[1] in paths


@given(st.lists(SEGMENT, max_size=6).map("/".join))
def test_normalize_is_idempotent(path):
    once = normalize(path)
    assert once is None or normalize(once) == once


@given(st.sampled_from([".", "./a", "./a/b", "./x"]), st.sampled_from([("import",), ("require",), ("node", "default")]))
def test_exports_targets_are_literal_or_absent(subpath, conditions):
    exports = {".": {"import": "./esm.mjs", "require": "./cjs.js"}, "./a/*": "./lib/*.js", "./x": None}
    target = exports_target(exports, subpath, conditions)
    assert target is None or target.startswith("./")


def _evidence(result):
    return create_evidence(
        provider=Provider(id="javascript", name="t", version="1"),
        operation="analyze_javascript_application",
        parameters={},
        normalized_result=result,
        subject=Subject(name="app", sha256="0" * 64, format="directory", architecture=None, local_path="/app"),
    ).unwrap()


@given(trees(), st.integers(1, 7))
def test_module_pages_partition_the_modules(tree, limit):
    result = graph(*tree)
    evidence = _evidence(wired(result))
    seen, offset = [], 0
    while offset is not None:
        view = {"kind": "page", "collection": "modules", "offset": offset, "limit": limit}
        page = application_view(evidence, view).unwrap()
        assert len(page["items"]) <= limit
        seen += [i["node_id"] for i in page["items"]]
        offset = page["coverage"]["next_offset"]
    expected = [
        node_id(n["id"]) for n in result["nodes"] if n["kind"] in ("module", "bundled-module", "original-source-module")
    ]
    assert seen == expected


@given(trees(), st.sampled_from(["a", "b"]), st.integers(0, 3), st.integers(1, 5))
def test_traces_stay_within_limits(tree, channel, depth, nodes):
    result = graph(*tree)
    limits = {**to_wire(TraceLimits()), "max_depth": depth, "max_nodes": nodes}
    seed = {"kind": "channel", "value": channel, "match": None, "case_sensitive": False}
    args = structure(
        {"application_evidence_id": "ev_" + "0" * 64, "seed": seed, "direction": "both", "limits": limits},
        TraceFeatureArgs,
    ).unwrap()
    traced = trace_feature(wired(result), "ev_" + "0" * 64, args)
    sub = traced["graph"]["nodes"] if traced["graph"] is not None else []
    assert len(sub) <= max(nodes, len(traced["seed_matches"])) * 2
    assert {n["node_id"] for n in sub} <= {node_id(n["id"]) for n in result["nodes"]}
    edges = {e["edge_id"] for e in traced["graph"]["edges"]} if traced["graph"] is not None else set()
    assert all(set(p["edge_ids"]) <= edges for p in traced["paths"])  # a path uses only the subgraph's edges
    assert {n["node_id"] for n in sub} >= {
        x for e in (traced["graph"] or {"edges": []})["edges"] for x in (e["source_node_id"], e["target_node_id"])
    }  # no edge of the subgraph dangles
    assert all(len(p["node_ids"]) - 1 <= depth for p in traced["paths"])
    assert traced["summary"]["traced_nodes"] == len(sub)


def test_shuffle_helper_is_seeded():
    assert random.Random(1).random() == random.Random(1).random()


@given(st.lists(st.integers(0, 6 * 1024 * 1024), max_size=200), st.booleans())
def test_batches_partition_the_files_in_order_within_their_bounds(sizes, parallel):
    from rea.javascript.programs.analysis import BATCH_BYTES, BATCH_FILES, batches

    files = [{"path": f"f{i:04}.js", "size": s} for i, s in enumerate(sizes)]
    out = batches(files, parallel)
    assert [f for batch in out for f in batch] == files
    assert all(batch and len(batch) <= BATCH_FILES for batch in out)
    # a batch is over the byte bound only by its last file: alone, or (two processes) with one partner
    for batch in out:
        if sum(f["size"] for f in batch) > BATCH_BYTES:
            assert len(batch) <= (2 if parallel else 1) or sum(f["size"] for f in batch[:-1]) <= BATCH_BYTES


@given(
    st.fixed_dictionaries(
        {
            "from": st.text(max_size=12),
            "relation": st.sampled_from(["imports", "loads", "changed_from"]),
            "to": st.text(max_size=12),
            "start": st.integers(-1, 2**53 - 1),
        }
    )
)
def test_edge_ids_take_the_canonical_digest(key):
    """The fast digest of a flat key is the RFC 8785 one, whatever text the keys of its nodes hold."""
    assert edge_id(key) == "jag_edge_" + canonical_sha256(key)


@given(st.text(max_size=20), st.text(max_size=20))
def test_node_ids_are_a_function_of_the_key(a, b):
    assert node_id(a).startswith("jag_node_") and len(node_id(a)) == 73
    assert (node_id(a) == node_id(b)) == (a == b)


@given(st.text(max_size=8), st.integers(0, 10**6), st.text(max_size=8))
def test_a_semantic_cursor_continues_only_its_own_query(qid, offset, other):
    from rea.javascript.semantics import CursorError, cursor_for, cursor_offset

    assert cursor_offset(qid, cursor_for(qid, offset)) == offset
    if other != qid:
        try:
            cursor_offset(other, cursor_for(qid, offset))
        except CursorError:
            pass
        else:
            raise AssertionError("a cursor of another query was accepted")
