"""Compiled asset catalogs (.car): the BOM store they live in, and the rendition records inside, bounded.

No maintained Python reader of this format exists, and Apple's own (assetutil, CoreUI) runs
on macOS only, so this is a small reader of what is publicly documented by
reverse engineering: what it cannot decode it names in `metadata.undecoded` or in the
limitations, and never guesses.

A .car file is a BOM store (big-endian): a 512-byte header ("BOMStore", version, block
count, index table offset and length, variables offset and length), an index table of
(offset, length) blocks, and named variables that point at blocks. Inside, CoreUI's
structures are little-endian: CARHEADER (versions, rendition count, UUID), KEYFORMAT
(the attribute ids a rendition key holds), and B-trees RENDITIONS (rendition key ->
CSI header with the rendition's file name, size, scale and pixel format) and FACETKEYS
(asset name -> attribute tokens, whose Identifier ties renditions to their asset).
Every tree walk is bounded by block count and visits each block at most once, so a
cyclic or lying tree ends.
"""

from __future__ import annotations

import struct

import attrs
from returns.result import Failure, Result, Success

from rea.apple_artifacts.car_records import CarEntry, CatalogMetadata, RenditionMetadata
from rea.errors import ReaError, invalid_request

MAGIC = b"BOMStore"
MAX_BLOCKS = 1_000_000
MAX_RECORDS = 500_000
ACCEPTED = "a compiled asset catalog (.car): a BOM store with CARHEADER and RENDITIONS"
# rendition key attribute ids as CoreUI numbers them (publicly reverse-engineered names)
ATTRIBUTES = {
    0: "ThemeLook", 1: "Element", 2: "Part", 3: "Size", 4: "Direction", 5: "Placeholder", 6: "Value",
    7: "ThemeAppearance", 8: "Dimension1", 9: "Dimension2", 10: "State", 11: "Layer", 12: "Scale",
    13: "Localization", 14: "PresentationState", 15: "Idiom", 16: "Subtype", 17: "Identifier",
    18: "PreviousValue", 19: "PreviousState", 20: "HorizontalSizeClass", 21: "VerticalSizeClass",
    22: "MemoryLevelClass", 23: "GraphicsFeatureSetClass", 24: "DisplayGamut", 25: "DeploymentTarget",
}  # fmt: skip
IDENTIFIER = 17
IDIOMS = {0: "universal", 1: "phone", 2: "pad", 3: "tv", 4: "car", 5: "watch", 6: "marketing", 7: "mac", 8: "vision"}


class Malformed(ValueError):
    pass


@attrs.frozen(kw_only=True)
class Catalog:
    header: CatalogMetadata
    records: tuple[CarEntry, ...]
    limitations: tuple[str, ...]


class _Bom:
    def __init__(self, data: bytes) -> None:
        if len(data) < 32 or not data.startswith(MAGIC):
            raise Malformed("it does not start with a BOMStore header")
        self.data = data
        _, _, self.block_count, index_at, index_len, vars_at, vars_len = struct.unpack_from(">8s6I", data)
        self.blocks = self._index(index_at, index_len)
        self.vars = self._vars(vars_at, vars_len)

    def _span(self, at: int, length: int, what: str) -> bytes:
        if at + length > len(self.data):
            raise Malformed(f"{what} at byte {at} ({length} bytes) runs past the end of the file")
        return self.data[at : at + length]

    def _index(self, at: int, length: int) -> list[tuple[int, int]]:
        raw = self._span(at, length, "the block index")
        if len(raw) < 4:
            raise Malformed("the block index is empty")
        count = struct.unpack_from(">I", raw)[0]
        if count > MAX_BLOCKS or 4 + 8 * count > len(raw):
            raise Malformed(f"the block index claims {count} blocks; its {len(raw)} bytes hold fewer")
        return [struct.unpack_from(">II", raw, 4 + 8 * i) for i in range(count)]

    def _vars(self, at: int, length: int) -> dict[str, int]:
        raw = self._span(at, length, "the variables")
        count, pos, found = struct.unpack_from(">I", raw)[0] if len(raw) >= 4 else 0, 4, {}
        for _ in range(min(count, 10_000)):
            if pos + 5 > len(raw):
                raise Malformed("a variable runs past the variables table")
            index, size = struct.unpack_from(">IB", raw, pos)
            found[raw[pos + 5 : pos + 5 + size].decode("ascii", "replace")] = index
            pos += 5 + size
        return found

    def block(self, index: int, what: str) -> bytes:
        if not 0 <= index < len(self.blocks):
            raise Malformed(f"{what} names block {index}; the store has {len(self.blocks)}")
        at, length = self.blocks[index]
        return self._span(at, length, what)

    def var(self, name: str) -> bytes | None:
        return self.block(self.vars[name], name) if name in self.vars else None

    def tree(self, name: str) -> list[tuple[bytes, bytes]]:
        """The (key, value) leaves of a BOM tree in order, each block visited at most once."""
        raw = self.var(name)
        if raw is None:
            return []
        if len(raw) < 20 or raw[:4] != b"tree":
            raise Malformed(f"{name} is not a BOM tree")
        node, seen = struct.unpack_from(">I", raw, 8)[0], set()
        leaves: list[tuple[bytes, bytes]] = []
        while node and node not in seen:  # descend to the leftmost leaf
            seen.add(node)
            paths = self.block(node, f"{name} node")
            is_leaf, count = struct.unpack_from(">HH", paths) if len(paths) >= 12 else (1, 0)
            if is_leaf:
                break
            node = struct.unpack_from(">I", paths, 12)[0] if count and len(paths) >= 16 else 0
        seen = set()
        while node and node not in seen and len(leaves) < MAX_RECORDS:
            seen.add(node)
            paths = self.block(node, f"{name} leaf")
            if len(paths) < 12:
                raise Malformed(f"a {name} leaf is shorter than its header")
            _, count, forward, _ = struct.unpack_from(">HHII", paths)
            if 12 + 8 * count > len(paths):
                raise Malformed(f"a {name} leaf claims {count} entries; its {len(paths)} bytes hold fewer")
            for i in range(count):
                value, key = struct.unpack_from(">II", paths, 12 + 8 * i)
                leaves.append((self.block(key, f"{name} key"), self.block(value, f"{name} value")))
            node = forward
        return leaves


def _cstring(raw: bytes) -> str:
    return raw.split(b"\x00", 1)[0].decode("utf-8", "replace")


def _fourcc(value: int) -> str:
    text = value.to_bytes(4, "big").decode("latin-1")
    return text if text.isprintable() else str(value)


def _header(raw: bytes | None) -> CatalogMetadata:
    if raw is None or len(raw) < 436:
        raise Malformed("there is no readable CARHEADER")
    _, core, storage, stamp, count = struct.unpack_from("<5I", raw)
    main, version, uuid = _cstring(raw[20:148]), _cstring(raw[148:404]), raw[404:420].hex()
    return CatalogMetadata(core_ui_version=core, storage_version=storage, timestamp=stamp, rendition_count=count,
                           main_version=main, version_string=version, uuid=uuid,
                           schema_version=struct.unpack_from("<I", raw, 424)[0] if len(raw) >= 428 else None)  # fmt: skip


def _key_format(raw: bytes | None) -> list[int]:
    if raw is None or len(raw) < 12:
        raise Malformed("there is no readable KEYFORMAT")
    count = struct.unpack_from("<I", raw, 8)[0]
    if 12 + 4 * count > len(raw) or count > 64:
        raise Malformed(f"KEYFORMAT claims {count} attributes; it holds fewer")
    return list(struct.unpack_from(f"<{count}I", raw, 12))


def _facets(bom: _Bom) -> dict[int, str]:
    """Asset names by their Identifier attribute."""
    names: dict[int, str] = {}
    for key, value in bom.tree("FACETKEYS"):
        if len(value) < 6:
            continue
        count = struct.unpack_from("<H", value, 4)[0]
        for i in range(min(count, (len(value) - 6) // 4)):
            attribute, number = struct.unpack_from("<HH", value, 6 + 4 * i)
            if attribute == IDENTIFIER:
                names.setdefault(number, key.decode("utf-8", "replace"))
    return names


def _metadata(value: bytes, attributes: dict[str, int], asset: str | None) -> tuple[str | None, RenditionMetadata]:
    """The rendition name and its metadata: the CSI header's facts when the value starts with a CTSI header."""
    idiom = IDIOMS.get(attributes["Idiom"], str(attributes["Idiom"])) if "Idiom" in attributes else None
    if len(value) < 184 or value[:4] not in (b"ISTC", b"CTSI"):
        undecoded = ("the CSI header (the value does not start with a CTSI tag of 184 bytes)",)
        return None, RenditionMetadata(attributes=attributes, undecoded=undecoded, idiom=idiom, name=asset)
    _, version, flags, width, height, scale, pixel, color = struct.unpack_from("<8I", value)
    metadata = RenditionMetadata(attributes=attributes, csi_version=version, rendition_flags=flags, pixel_width=width,
                                 pixel_height=height, scale=scale / 100, pixel_format=_fourcc(pixel),
                                 color_space_id=color & 0xF, layout=struct.unpack_from("<H", value, 36)[0],
                                 size_on_disk=len(value),
                                 undecoded=("rendition payload (image, color and data bytes are not decoded)",),
                                 idiom=idiom, name=asset)  # fmt: skip
    return _cstring(value[40:168]), metadata


def _rendition(index: int, key: bytes, value: bytes, tokens: list[int], names: dict[int, str]) -> CarEntry:
    attributes: dict[str, int] = {}
    for i, token in enumerate(tokens):
        if 2 * i + 2 <= len(key):
            attributes[ATTRIBUTES.get(token, f"attribute_{token}")] = struct.unpack_from("<H", key, 2 * i)[0]
    asset = names.get(attributes.get("Identifier", -1))
    name, metadata = _metadata(value, attributes, asset)
    return CarEntry(index=index, kind="rendition", asset_name=asset, rendition_name=name or None, metadata=metadata)


def parse_car(data: bytes) -> Result[Catalog, ReaError]:
    """The catalog record and one record per rendition, in RENDITIONS order, or why the file is unreadable."""
    try:
        bom = _Bom(data)
        header = _header(bom.var("CARHEADER"))
        tokens = _key_format(bom.var("KEYFORMAT"))
        names = _facets(bom)
        leaves = bom.tree("RENDITIONS")
    except (Malformed, struct.error) as exc:
        return Failure(invalid_request(f"the asset catalog is malformed: {exc}", accepted=ACCEPTED, reason="malformed"))
    header = attrs.evolve(
        header, key_format=tuple(ATTRIBUTES.get(t, f"attribute_{t}") for t in tokens), variables=tuple(sorted(bom.vars))
    )
    catalog = CarEntry(index=0, kind="catalog", asset_name=None, rendition_name=None, metadata=header)
    records = [catalog] + [_rendition(i + 1, k, v, tokens, names) for i, (k, v) in enumerate(leaves)]
    limitations = []
    if header.rendition_count != len(leaves):
        limitations.append(
            f"CARHEADER counts {header.rendition_count} renditions; the RENDITIONS tree holds {len(leaves)}"
        )
    if len(leaves) >= MAX_RECORDS:
        limitations.append(f"only the first {MAX_RECORDS} renditions are read")
    return Success(Catalog(header=header, records=tuple(records), limitations=tuple(limitations)))
