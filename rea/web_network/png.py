"""PNG to RGBA8 pixels with zlib alone: chunks checked (length, CRC, order), the image bounded before inflating.

Hostile input (a truncated file, a chunk length past the end, a CRC that does not
match, IDAT that inflates past the image's own size) is a `PngError` naming what is
wrong; nothing here allocates more than the declared image, which is refused first
when it exceeds the caller's pixel bound. Interlaced (Adam7) images are refused:
browsers' screenshot encoders do not write them.
"""

from __future__ import annotations

import struct
import zlib
from typing import TYPE_CHECKING

import attrs

if TYPE_CHECKING:  # numpy's import is a tenth of a second: a decode pays it, not every server's first call
    import numpy as np

SIGNATURE = b"\x89PNG\r\n\x1a\n"
# color type -> (channels, allowed bit depths)
COLOR_TYPES: dict[int, tuple[int, frozenset[int]]] = {
    0: (1, frozenset({1, 2, 4, 8, 16})),  # grayscale
    2: (3, frozenset({8, 16})),  # RGB
    3: (1, frozenset({1, 2, 4, 8})),  # palette
    4: (2, frozenset({8, 16})),  # grayscale + alpha
    6: (4, frozenset({8, 16})),  # RGBA
}


class PngError(ValueError):
    """The bytes are not a PNG this decoder accepts; the message says why."""


@attrs.frozen(kw_only=True)
class Header:
    width: int
    height: int
    bit_depth: int
    color_type: int
    interlace: int

    @property
    def channels(self) -> int:
        return COLOR_TYPES[self.color_type][0]

    @property
    def stride(self) -> int:
        """Bytes of one unfiltered scanline."""
        return (self.width * self.channels * self.bit_depth + 7) // 8

    @property
    def bpp(self) -> int:
        """Filter unit: bytes per complete pixel, at least 1."""
        return max(1, self.channels * self.bit_depth // 8)


@attrs.frozen(kw_only=True)
class Image:
    width: int
    height: int
    rgba: bytes  # width * height * 4 bytes, row-major


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    """(type, payload) of every chunk up to IEND, each length and CRC checked."""
    if not data.startswith(SIGNATURE):
        raise PngError("it does not start with the PNG signature")
    found: list[tuple[bytes, bytes]] = []
    at = len(SIGNATURE)
    while True:
        if at + 12 > len(data):
            raise PngError(f"truncated: a chunk header at byte {at} runs past the end ({len(data)} bytes)")
        (length,) = struct.unpack_from(">I", data, at)
        kind = data[at + 4 : at + 8]
        end = at + 12 + length
        if length > 0x7FFFFFFF or end > len(data):
            raise PngError(f"chunk {kind!r} at byte {at} claims {length} bytes, past the end of the file")
        payload = data[at + 8 : at + 8 + length]
        (crc,) = struct.unpack_from(">I", data, at + 8 + length)
        if zlib.crc32(kind + payload) != crc:
            raise PngError(f"chunk {kind!r} at byte {at} fails its CRC")
        found.append((kind, payload))
        at = end
        if kind == b"IEND":
            return found


def _header(chunks: list[tuple[bytes, bytes]]) -> Header:
    kind, payload = chunks[0]
    if kind != b"IHDR" or len(payload) != 13:
        raise PngError("the first chunk is not a 13-byte IHDR")
    width, height, depth, color, compression, filtering, interlace = struct.unpack(">IIBBBBB", payload)
    if width == 0 or height == 0:
        raise PngError(f"the image is {width}x{height}")
    if color not in COLOR_TYPES or depth not in COLOR_TYPES[color][1]:
        raise PngError(f"color type {color} with bit depth {depth} is not a PNG combination")
    if compression != 0 or filtering != 0 or interlace not in (0, 1):
        raise PngError(f"unknown compression {compression}, filter method {filtering} or interlace {interlace}")
    if interlace == 1:
        raise PngError("the image is Adam7-interlaced, which this decoder does not read")
    return Header(width=width, height=height, bit_depth=depth, color_type=color, interlace=interlace)


def _inflate(idat: bytes, size: int) -> bytes:
    """Exactly `size` bytes of inflated IDAT: less is truncated, more is refused without inflating it."""
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(idat, size + 1)
    except zlib.error as exc:
        raise PngError(f"IDAT does not inflate: {exc}") from None
    if len(raw) > size or inflater.unconsumed_tail:
        raise PngError(f"IDAT inflates past the {size} bytes the header declares")
    if len(raw) < size:
        raise PngError(f"IDAT inflates to {len(raw)} bytes; the header declares {size}")
    return raw


def _paeth_row(row: bytearray, prior: bytes | bytearray, bpp: int) -> None:
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        b = prior[i]
        c = prior[i - bpp] if i >= bpp else 0
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        row[i] = (row[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF


def _average_row(row: bytearray, prior: bytes | bytearray, bpp: int) -> None:
    for i in range(len(row)):
        a = row[i - bpp] if i >= bpp else 0
        row[i] = (row[i] + ((a + prior[i]) >> 1)) & 0xFF


def _sub_row(row: bytearray, bpp: int) -> bytearray:
    """Sub is a running sum per byte lane: one numpy cumsum instead of a byte loop."""
    import numpy as np  # noqa: PLC0415 - see the module's imports

    lanes = np.frombuffer(bytes(row) + bytes(-len(row) % bpp), dtype=np.uint8).reshape(-1, bpp)
    summed = np.cumsum(lanes, axis=0, dtype=np.uint64) & 0xFF
    return bytearray(summed.astype(np.uint8).tobytes()[: len(row)])


def _unfilter(raw: bytes, header: Header) -> bytes:
    import numpy as np  # noqa: PLC0415 - see the module's imports

    stride, bpp = header.stride, header.bpp
    out = bytearray()
    prior: bytes | bytearray = bytes(stride)
    for y in range(header.height):
        at = y * (stride + 1)
        kind = raw[at]
        row = bytearray(raw[at + 1 : at + 1 + stride])
        if kind == 1:
            row = _sub_row(row, bpp)
        elif kind == 2:
            row = bytearray((np.frombuffer(row, np.uint8) + np.frombuffer(prior, np.uint8)).tobytes())
        elif kind == 3:
            _average_row(row, prior, bpp)
        elif kind == 4:
            _paeth_row(row, prior, bpp)
        elif kind != 0:
            raise PngError(f"scanline {y} has filter type {kind} (0..4 exist)")
        out += row
        prior = row
    return bytes(out)


def _samples(data: bytes, header: Header) -> np.ndarray:
    """One uint8 sample per channel per pixel (16-bit keeps its high byte; low depths are scaled to 0..255)."""
    import numpy as np  # noqa: PLC0415 - see the module's imports

    depth, width, channels = header.bit_depth, header.width, header.channels
    rows = np.frombuffer(data, dtype=np.uint8).reshape(header.height, header.stride)
    if depth == 16:
        return rows.reshape(header.height, width * channels, 2)[:, :, 0].reshape(-1, channels)
    if depth == 8:
        return rows.reshape(-1, channels)
    bits = np.unpackbits(rows, axis=1).reshape(header.height, -1, depth)[:, :width, :]
    values: np.ndarray = np.zeros(bits.shape[:2], dtype=np.uint16)
    for k in range(depth):
        values = (values << 1) | bits[:, :, k].astype(np.uint16)
    if header.color_type == 3:
        return values.astype(np.uint8).reshape(-1, 1)
    return (values * (255 // ((1 << depth) - 1))).astype(np.uint8).reshape(-1, 1)


def _rgba(samples: np.ndarray, header: Header, chunks: list[tuple[bytes, bytes]]) -> np.ndarray:
    import numpy as np  # noqa: PLC0415 - see the module's imports

    color = header.color_type
    count = samples.shape[0]
    alpha = np.full((count, 1), 255, dtype=np.uint8)
    if color == 6:
        return samples
    if color == 2:
        return np.concatenate([samples, alpha], axis=1)
    if color == 0:
        return np.concatenate([samples, samples, samples, alpha], axis=1)
    if color == 4:
        gray, a = samples[:, :1], samples[:, 1:2]
        return np.concatenate([gray, gray, gray, a], axis=1)
    return _palette(samples[:, 0], chunks)


def _palette(indexes: np.ndarray, chunks: list[tuple[bytes, bytes]]) -> np.ndarray:
    import numpy as np  # noqa: PLC0415 - see the module's imports

    plte = next((payload for kind, payload in chunks if kind == b"PLTE"), None)
    if plte is None or len(plte) % 3 or not plte:
        raise PngError("a palette image without a valid PLTE chunk")
    entries = len(plte) // 3
    table = np.full((256, 4), 255, dtype=np.uint8)
    table[:entries, :3] = np.frombuffer(plte, dtype=np.uint8).reshape(-1, 3)
    trns = next((payload for kind, payload in chunks if kind == b"tRNS"), b"")
    table[: min(len(trns), entries), 3] = np.frombuffer(trns[:entries], dtype=np.uint8)
    if int(indexes.max(initial=0)) >= entries:
        raise PngError(f"a pixel names palette entry {int(indexes.max())}; PLTE has {entries}")
    rgba: np.ndarray = table[indexes]
    return rgba


def decode_png(data: bytes, maximum_pixels: int) -> Image:
    """RGBA8 pixels of a non-interlaced PNG no larger than `maximum_pixels`, or PngError."""
    import numpy as np  # noqa: PLC0415 - see the module's imports

    chunks = _chunks(data)
    header = _header(chunks)
    pixels = header.width * header.height
    if pixels > maximum_pixels:
        raise PngError(f"the image is {header.width}x{header.height} ({pixels} pixels), past maximum_pixels")
    idat = b"".join(payload for kind, payload in chunks if kind == b"IDAT")
    if not idat:
        raise PngError("it has no IDAT chunk")
    raw = _inflate(idat, header.height * (header.stride + 1))
    rgba = _rgba(_samples(_unfilter(raw, header), header), header, chunks)
    return Image(width=header.width, height=header.height, rgba=np.ascontiguousarray(rgba, dtype=np.uint8).tobytes())
