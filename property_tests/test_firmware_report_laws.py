"""Laws of the unblob report normalizer (rea.firmware.report) over hostile reports: total, and no workspace path
ever leaves it (every path it answers is `$input`, `$output/...` or `$unknown`)."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from rea.firmware.report import Workspace, normalize
from rea.wire.convert import to_wire

WS = Workspace(input_path="/w/input/fw.bin", output_root="/w/out", selection_offset=7, max_depth=2)
paths = st.sampled_from(["/w/input/fw.bin", "/w/out/a", "/w/out/a/b_extract/0-4.gzip_extract/x", "/elsewhere", ""])
json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=8) | paths,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=20,
)
reports = st.fixed_dictionaries(
    {
        "__typename__": st.sampled_from(
            ["ChunkReport", "UnknownChunkReport", "StatReport", "ExtractCommandFailedReport"]
        )
    },
    optional={
        "id": st.text(max_size=8),
        "handler_name": st.text(max_size=8),
        "start_offset": st.integers(0, 2**32) | json_values,
        "size": st.integers(0, 2**32) | json_values,
        "is_encrypted": st.booleans(),
        "is_file": st.booleans(),
        "is_dir": st.booleans(),
        "path": paths,
    },
)
tasks = st.fixed_dictionaries(
    {"task": st.fixed_dictionaries({"path": paths, "depth": st.integers(0, 5), "blob_id": st.text(max_size=6)})},
    optional={
        "reports": st.lists(reports, max_size=4) | json_values,
        "subtasks": st.lists(st.fixed_dictionaries({"path": paths, "blob_id": st.text(max_size=6)}), max_size=3),
    },
)


@settings(max_examples=200, deadline=None)
@given(st.lists(tasks, max_size=6) | json_values)
def test_normalize_is_total_and_leaks_no_workspace_path(raw):
    found = normalize(raw, WS)
    text = json.dumps(
        to_wire((found.regions, found.chunks, found.derivations, found.diagnostics, found.depth_limited_paths))
    )
    assert "/w/" not in text
    for chunk in found.chunks:
        if chunk.root_file_range is not None:
            assert chunk.input_path == "$input" and chunk.root_file_range.offset >= WS.selection_offset
