"""Hostile dylib trees: random symlink webs, rpath loops and dependency cycles always end, every edge's
candidates stop at the first loadable one, and fuzzed Mach-O bytes are classified, never raised."""

from __future__ import annotations

import base64
import os
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from effects.layout.dylib_read import image_facts
from rea.layout.dylib import trace

NAMES = ["a", "b", "c", "lib/x", "lib/y", "lib/../a"]
PREFIXES = ["@rpath/", "@loader_path/", "@executable_path/", "@loader_path/../", "/usr/lib/", ""]
RPATHS = ["@loader_path", "@loader_path/lib", "@executable_path/..", "@loader_path/../..", "/abs", "rel"]
COMMANDS = ["LC_LOAD_DYLIB", "LC_LOAD_WEAK_DYLIB", "LC_LAZY_LOAD_DYLIB", "LC_REEXPORT_DYLIB"]


def _dependency(command: str, name: str) -> dict:
    return {
        "command": command,
        "encoding": "dylib_command",
        "install_name": name,
        "weak": command == "LC_LOAD_WEAK_DYLIB",
        "upward": False,
        "reexport": command == "LC_REEXPORT_DYLIB",
        "delayed_init": False,
        "current_version": "1.0.0",
        "compatibility_version": "1.0.0",
    }


image = st.fixed_dictionaries(
    {
        "file_type": st.sampled_from(["execute", "dylib", "bundle"]),
        "install_name": st.none() | st.builds(lambda p, n: p + n, st.sampled_from(PREFIXES), st.sampled_from(NAMES)),
        "rpaths": st.lists(st.sampled_from(RPATHS), max_size=4),
        "dependencies": st.lists(
            st.builds(
                _dependency,
                st.sampled_from(COMMANDS),
                st.builds(lambda p, n: p + n, st.sampled_from(PREFIXES), st.sampled_from(NAMES)),
            ),
            max_size=5,
        ),
        "architecture": st.sampled_from(["x86_64", "arm64"]),
    }
)
entry = st.one_of(
    st.just({"kind": "file"}),
    st.just({"kind": "directory"}),
    st.builds(lambda t: {"kind": "symlink", "target": t}, st.sampled_from([*NAMES, "/etc", "..", "lib", "a/b"])),
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["a", "b", "c", "lib", "lib/x", "lib/y"]), entry, min_size=1), st.data())
def test_any_tree_traces_to_an_end(tree, data):
    images = {}
    for path, item in tree.items():
        if item["kind"] == "file" and data.draw(st.booleans()):
            chosen = data.draw(image)
            chosen.update(dyld_environment=[], code_signature_present=False, platforms=[])
            images[path] = {"status": "parsed", "reason": None, "slices": [chosen], "sha256": "0" * 64}
    roots = sorted(images)
    result = trace(tree, images, roots, [], None)
    for edge in result["edges"]:
        outcomes = [c["outcome"] for c in edge["candidates"]]
        assert "resolved" not in outcomes[:-1]  # dyld stops at the first loadable candidate
        assert (edge["resolution"]["image"] is None) == (edge["resolution"]["status"] in ("unresolved", "undetermined"))
        if edge["resolution"]["image"] is not None:
            assert edge["resolution"]["image"] in images
    assert {r["image"] for r in result["roots"]} <= set(images)


SEED = Path("/usr/share/go-1.19/src/debug/macho/testdata/fat-gcc-386-amd64-darwin-exec.base64")


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_fuzzed_macho_is_classified(data):
    raw = bytearray(base64.b64decode(SEED.read_text())) if SEED.exists() else bytearray(b"\xca\xfe\xba\xbe" + bytes(60))
    cut = data.draw(st.integers(min_value=4, max_value=len(raw)))
    raw = raw[:cut]
    for _ in range(data.draw(st.integers(min_value=0, max_value=8))):
        at = data.draw(st.integers(min_value=0, max_value=min(len(raw) - 1, 4096)))
        raw[at] = data.draw(st.integers(min_value=0, max_value=255))
    fd, path = tempfile.mkstemp()
    try:
        os.write(fd, bytes(raw))
        os.close(fd)
        facts = image_facts(path)
    finally:
        os.unlink(path)
    assert facts["status"] in ("parsed", "malformed", "unsupported")
    assert (facts["status"] == "parsed") == bool(facts["slices"])
