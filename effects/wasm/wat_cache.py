"""The decoded-WAT page cache: wasm2wat's output kept outside the reply, compressed, content-addressed, indexed.

While wasm2wat streams, the text is cut into blocks of BLOCK_UNITS UTF-16 code units
(at character boundaries), each compressed on its own with zstd and appended to
`<cache>/wasm-wat/<wat sha256>.blocks`; the index beside it records every block's
unit range, byte range and SHA-256. The index digest (over unit ranges and block
digests, not the compressed bytes) goes into the Evidence, so a page read checks
the chain Evidence -> index -> block before serving text, and reads only the blocks
it covers: the whole WAT (gigabytes for a large module) is never held in memory and
WABT is not run again.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import Any

import anyio.to_thread
import orjson
import zstandard
from returns.result import Failure, Result

from effects.native.cache import cache_root
from effects.progress import Progress
from rea.errors import ReaError
from rea.native.views import utf16_window
from rea.wasm.model import ReadWatPage

BLOCK_UNITS = 1 << 18  # 256 Ki UTF-16 units (about 256 KiB of WAT) per compressed block
MAX_INDEX_BYTES = 64 << 20


def units_of(text: str) -> int:
    """UTF-16 code units of `text` (C speed: no per-character loop over gigabytes)."""
    return len(text) if text.isascii() else len(text.encode("utf-16-le")) // 2


def first_units(text: str, room: int) -> str:
    """The longest prefix of `text` within `room` UTF-16 units, never half a surrogate pair."""
    if text.isascii():
        return text[:room]
    wide = text.encode("utf-16-le")[: 2 * room]
    if len(wide) >= 2 and 0xD800 <= int.from_bytes(wide[-2:], "little") <= 0xDBFF:
        wide = wide[:-2]
    return wide.decode("utf-16-le")


def index_digest(wat_sha256: str, blocks: list[list[Any]]) -> str:
    """SHA-256 over what a block is (unit range, UTF-8 size, digest), independent of its compression."""
    facts = {"wat_sha256": wat_sha256, "block_units": BLOCK_UNITS, "blocks": [[b[0], b[1], b[4], b[5]] for b in blocks]}
    return hashlib.sha256(orjson.dumps(facts, option=orjson.OPT_SORT_KEYS)).hexdigest()


def _directory(root: Path | None = None) -> Path:
    return (root or cache_root()) / "wasm-wat"


class WatWriter:
    """Blocks of the streamed WAT, compressed into a temporary file named for its digest when complete."""

    def __init__(self, root: Path | None = None) -> None:
        self.directory = _directory(root)
        self.directory.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=self.directory, prefix=".wat-", suffix=".part")
        self.handle = os.fdopen(handle, "wb")
        self.part = Path(name)
        self.compressor = zstandard.ZstdCompressor(level=3)
        self.pending: list[str] = []
        self.pending_units = 0
        self.units = 0
        self.offset = 0
        self.blocks: list[list[Any]] = []

    def feed(self, text: str) -> None:
        self.pending.append(text)
        self.pending_units += units_of(text)
        while self.pending_units >= BLOCK_UNITS:
            joined = "".join(self.pending)
            block = first_units(joined, BLOCK_UNITS) or joined[:1]  # a pair never splits, even past a tiny block
            rest = joined[len(block) :]
            self._write(block)
            self.pending, self.pending_units = [rest], self.pending_units - units_of(block)

    def _write(self, block: str) -> None:
        raw = block.encode("utf-8")
        packed = self.compressor.compress(raw)
        count = units_of(block)
        self.handle.write(packed)
        self.blocks.append([self.units, count, self.offset, len(packed), len(raw), hashlib.sha256(raw).hexdigest()])
        self.units += count
        self.offset += len(packed)

    def finish(self, wat_sha256: str) -> dict[str, Any]:
        """Publish the blocks and index under the WAT digest; the Evidence's page_index."""
        rest = "".join(self.pending)
        if rest:
            self._write(rest)
        self.handle.close()
        digest = index_digest(wat_sha256, self.blocks)
        index = {"wat_sha256": wat_sha256, "block_units": BLOCK_UNITS, "blocks": self.blocks}
        os.replace(self.part, self.directory / f"{wat_sha256}.blocks")
        staged = self.directory / f".{wat_sha256}.index.part"
        staged.write_bytes(orjson.dumps(index))
        os.replace(staged, self.directory / f"{wat_sha256}.index.json")
        return {"index_sha256": digest, "block_units": BLOCK_UNITS, "blocks": len(self.blocks)}

    def abandon(self) -> None:
        self.handle.close()
        self.part.unlink(missing_ok=True)


def _mismatch(why: str, expected: str) -> ReaError:
    return ReaError(
        code="evidence_integrity_mismatch",
        message=f"The retained WAT page cache does not match the Evidence ({why}); no page is served from it.",
        details={"field": "normalized_result.wat.page_index", "reason": "digest_mismatch", "expected": expected},
        action="Rerun inspect_wasm_artifact on the module to rebuild the page cache.",
    )


def _missing(sha256: str) -> ReaError:
    return ReaError(
        code="target_unavailable",
        message=f"The decoded WAT {sha256} is not in this host's page cache (REA_CACHE_DIR).",
        details={"reason": "wat_cache_missing", "wat_sha256": sha256},
        action="Rerun inspect_wasm_artifact on the module (same REA_CACHE_DIR), then read the page again.",
    )


def read_page(effect: ReadWatPage, root: Path | None = None) -> Result[dict[str, Any], ReaError]:
    """{text, start, end} of one UTF-16 window, from the blocks that cover it (each digest checked)."""
    directory = _directory(root)
    try:
        index_path = directory / f"{effect.wat_sha256}.index.json"
        if index_path.stat().st_size > MAX_INDEX_BYTES:
            return Failure(_mismatch("the index is oversized", effect.index_sha256))
        index = orjson.loads(index_path.read_bytes())
        blocks = index["blocks"]
        if (
            index.get("wat_sha256") != effect.wat_sha256
            or index_digest(effect.wat_sha256, blocks) != effect.index_sha256
        ):
            return Failure(_mismatch("the index digest differs", effect.index_sha256))
        end = effect.offset + effect.limit + 1  # one unit more: a page end inside a pair moves past it
        chosen = [b for b in blocks if b[0] < end and b[0] + b[1] > effect.offset]
        texts = []
        with open(directory / f"{effect.wat_sha256}.blocks", "rb") as handle:
            for block in chosen:
                handle.seek(block[2])
                raw = zstandard.ZstdDecompressor().decompress(handle.read(block[3]), max_output_size=block[4])
                if hashlib.sha256(raw).hexdigest() != block[5]:
                    return Failure(_mismatch(f"block at unit {block[0]} differs", block[5]))
                texts.append(raw.decode("utf-8"))
    except FileNotFoundError:
        return Failure(_missing(effect.wat_sha256))
    except (OSError, ValueError, KeyError, TypeError, IndexError, zstandard.ZstdError) as exc:
        return Failure(_mismatch(f"it cannot be read: {type(exc).__name__}", effect.index_sha256))
    base = chosen[0][0] if chosen else effect.offset
    window = utf16_window("".join(texts), effect.offset - base, effect.limit)
    return window.map(lambda w: {"text": w[0], "start": base + w[1], "end": base + w[2]})


async def read_wat_page(effect: ReadWatPage, progress: Progress) -> Result[Any, ReaError]:
    await progress.report("reading a WAT page", effect.wat_sha256)
    page: Result[dict[str, Any], ReaError] = await anyio.to_thread.run_sync(read_page, effect)
    return page


HANDLERS = {ReadWatPage: read_wat_page}
