"""ASAR integrity blocks in the JavaScript family: an archive packed by the real @electron/asar whose file hash
was rewritten to match changed bytes is still caught by the block hashes Electron checks at read time."""

from __future__ import annotations

import hashlib
import subprocess

import pytest

from effects.calls import Connection
from javascript_fixtures import APP, analyze, call, node, write_tree
from scripted import CTX


@pytest.mark.slow
def test_rewritten_file_hash_is_caught_by_its_blocks(npm_tree, tmp_path):
    app = write_tree(tmp_path / "app", APP)
    archive = tmp_path / "app.asar"
    subprocess.run([str(npm_tree / ".bin" / "asar"), "pack", str(app), str(archive)], check=True, capture_output=True)
    original = (app / "src" / "store.js").read_bytes()
    changed = original.replace(b"data[key]", b"evil[key]")
    assert len(changed) == len(original)
    data = archive.read_bytes().replace(original, changed)
    old, new = (hashlib.sha256(x).hexdigest().encode() for x in (original, changed))
    data = data.replace(b'"hash":"' + old + b'"', b'"hash":"' + new + b'"')  # a one-block file's block hash is
    assert data.count(new) == 1  # the same digest: left as it was
    archive.write_bytes(data)
    conn = Connection(ctx=CTX)
    refused = call(conn, "analyze_javascript_application", {"input_path": str(archive)}).failure()
    assert refused.code == "artifact_integrity_mismatch"
    r = analyze(archive, conn, integrity_policy="record-and-continue")["normalized_result"]
    (contradiction,) = r["integrity_contradictions"]
    assert contradiction["logical_path"] == "src/store.js"
    assert contradiction["declared_sha256"] == contradiction["calculated_sha256"]  # the file hash was rewritten ...
    assert "block 0 " in contradiction["blocks"]  # ... its block was not
    assert node(r, "module:src/store.js")["parse"] == "quarantined"


def test_names_and_strings_that_are_not_unicode_do_not_stop_the_analysis(tmp_path):
    """A file name that is not UTF-8 and a source map carrying lone-surrogate escapes: recorded with %XX /
    %uXXXX escapes (canonical JSON cannot hold them), the file still read and parsed."""
    import json
    import os

    root = tmp_path / "app"
    root.mkdir()
    with open(os.path.join(os.fsencode(root), b"lib\xff.js"), "wb") as handle:
        handle.write(b"module.exports = { ok: true };\n")
    (root / "app.js.map").write_text(
        json.dumps(
            {
                "version": 3,
                "sources": ["a\ud800.js", "b.js"],
                "sourcesContent": ["export const a = '\ud800';\n", "export const b = 1;\n"],
                "mappings": "AAAA",
            }
        )
    )
    r = analyze(root)["normalized_result"]
    assert node(r, "module:lib%FF.js")["parse"] == "ok"
    assert node(r, "source:a%uD800.js")["exports"][0]["name"] == "a"
