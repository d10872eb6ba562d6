"""The WAT page cache serves exactly the window the whole text would: any text (astral characters
included), fed in any chunks, cut into small blocks, read at any offset and limit."""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

import effects.wasm.wat_cache as cache
from rea.native.views import utf16_window
from rea.wasm.model import ReadWatPage

alphabet = st.sampled_from(["a", "(", "\n", "é", "😀", "𝄞", "z"])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet, max_size=40), max_size=30), st.integers(0, 400), st.integers(1, 120), st.data())
def test_pages_match_the_whole_text(chunks, offset, limit, data):
    original = cache.BLOCK_UNITS
    cache.BLOCK_UNITS = data.draw(st.integers(1, 50))
    try:
        with tempfile.TemporaryDirectory() as root:
            writer = cache.WatWriter(Path(root))
            for chunk in chunks:
                writer.feed(chunk)
            text = "".join(chunks)
            digest = hashlib.sha256(text.encode()).hexdigest()
            index = writer.finish(digest)
            total = cache.units_of(text)
            if offset >= total:
                return
            got = cache.read_page(ReadWatPage(wat_sha256=digest, index_sha256=index["index_sha256"],
                                              offset=offset, limit=limit), Path(root))  # fmt: skip
            want = utf16_window(text, offset, limit)
            if isinstance(want, Success):
                page, start, end, _ = want.unwrap()
                assert got.unwrap() == {"text": page, "start": start, "end": end}
            else:
                assert got.failure().code == "invalid_request"
    finally:
        cache.BLOCK_UNITS = original
