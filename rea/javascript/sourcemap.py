"""Source map `mappings`: Base64 VLQ decoding reduced to source runs.

A bundle from rollup, vite or a minifier keeps no module boundaries in its code, but
its source map says which original file every generated segment came from. The runs
(where the original file changes, in generated order) are the module boundaries REA
recovers, and they are far smaller than the segments: one run per module switch.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_DIGIT = {c: i for i, c in enumerate(_ALPHABET)}


class Run(NamedTuple):
    """Generated code from (line, column) onwards comes from `source` (0-based; columns in UTF-16 units),
    for `segments` mapped segments."""

    line: int
    column: int
    source: int
    segments: int


class Runs(NamedTuple):
    runs: tuple[Run, ...]
    segments: tuple[int, ...]  # mapped segments per source index
    truncated: bool  # more runs than the bound: later runs are not listed (segment counts stay exact)
    invalid: int  # segments that could not be decoded (skipped)


def without_scheme(source: str) -> str:
    """A source-map source without its URL scheme. `webpack://<namespace>/path` names a path in the build's
    context directory, so the namespace (the package name, `_N_E`, or empty) goes with the scheme."""
    if source.startswith("webpack://"):
        return source[len("webpack://") :].partition("/")[2]
    return source.split("://", 1)[-1] if "://" in source else source


def comparable_path(source: str) -> str:
    """A path comparable across trees and maps: no scheme or webpack namespace, no '.', '..' or empty parts
    (`../../src/a.js` and `webpack://app/./src/a.js` are both `src/a.js`)."""
    return "/".join(p for p in without_scheme(source).split("/") if p not in ("", ".", ".."))


def decode_vlq(segment: str) -> tuple[int, ...]:
    """The signed integers of one segment; ValueError on a character outside Base64 or a dangling continuation."""
    values, shift, value = [], 0, 0
    for char in segment:
        digit = _DIGIT.get(char)
        if digit is None:
            raise ValueError(f"not a Base64 VLQ character: {char!r}")
        value += (digit & 31) << shift
        if digit & 32:
            shift += 5
            continue
        values.append(-(value >> 1) if value & 1 else value >> 1)
        shift, value = 0, 0
    if shift:
        raise ValueError("VLQ continuation without an end")
    return tuple(values)


def encode_vlq(values: Iterable[int]) -> str:
    """The inverse of `decode_vlq` (tests and fixtures use it)."""
    out = []
    for number in values:
        value = (-number << 1) | 1 if number < 0 else number << 1
        while True:
            digit, value = value & 31, value >> 5
            out.append(_ALPHABET[digit | (32 if value else 0)])
            if not value:
                break
    return "".join(out)


def source_runs(mappings: str, source_count: int, max_runs: int) -> Runs:
    """Runs of generated code per original source, in generated order.

    Segments repeat heavily in real maps ("AAAA", "CAAC"), so each distinct segment
    string is decoded once. Segments with a source index outside `source_count` are
    counted as invalid, never attributed.
    """
    cache: dict[str, tuple[int, ...] | None] = {}
    runs: list[list[int]] = []  # [line, column, source, segments]: the last one's count grows in place
    counts = [0] * source_count
    truncated, invalid, source, current = False, 0, 0, -1
    for line, text in enumerate(mappings.split(";")):
        column = 0
        if not text:
            continue
        for segment in text.split(","):
            fields = cache.get(segment, ())
            if fields == ():
                try:
                    fields = decode_vlq(segment)
                except ValueError:
                    fields = None
                cache[segment] = fields
            if not fields:
                invalid += segment != ""
                continue
            column += fields[0]
            if len(fields) < 4:
                continue  # a generated-only segment maps to no source
            source += fields[1]
            if not 0 <= source < source_count or column < 0:
                invalid += 1
                continue
            counts[source] += 1
            if source != current:
                current = source
                if len(runs) < max_runs:
                    runs.append([line, column, source, 0])
                else:
                    truncated = True
            if not truncated:
                runs[-1][3] += 1
    return Runs(tuple(Run(*r) for r in runs), tuple(counts), truncated, invalid)


def source_at(runs: Sequence[Run], start: tuple[int, int], end: tuple[int, int]) -> int | None:
    """The original source of generated code in [start, end): the source with the most segments among the runs
    that begin inside the range, else the run in force at `start`. None when nothing is mapped there."""
    first = bisect_left(runs, start, key=lambda r: (r.line, r.column))
    weight: dict[int, int] = {}
    for run in runs[first:]:
        if (run.line, run.column) >= end:
            break
        weight[run.source] = weight.get(run.source, 0) + run.segments
    if weight:
        return max(sorted(weight), key=weight.__getitem__)
    return runs[first - 1].source if first > 0 else None


class Segment(NamedTuple):
    """One decoded mapping segment (0-based lines; UTF-16 columns); source fields are None for a
    generated-only segment, name None when it names nothing."""

    line: int
    column: int
    source: int | None
    original_line: int | None
    original_column: int | None
    name: int | None


def segments(mappings: str) -> Iterator[Segment]:
    """Every segment of `mappings` in generated order; ValueError on a malformed segment (a field count
    other than 1, 4 or 5, or a negative position)."""
    source = original_line = original_column = name = 0
    cache: dict[str, tuple[int, ...]] = {}
    for line, text in enumerate(mappings.split(";")):
        column = 0
        if not text:
            continue
        for segment in text.split(","):
            if not segment:
                continue
            fields = cache.get(segment)
            if fields is None:
                fields = cache[segment] = decode_vlq(segment)
            if len(fields) not in (1, 4, 5):
                raise ValueError(f"a segment of {len(fields)} fields at generated line {line + 1}")
            column += fields[0]
            if len(fields) == 1:
                if column < 0:
                    raise ValueError(f"a negative generated column at line {line + 1}")
                yield Segment(line, column, None, None, None, None)
                continue
            source += fields[1]
            original_line += fields[2]
            original_column += fields[3]
            named = None
            if len(fields) == 5:
                name += fields[4]
                named = name
            if min(column, source, original_line, original_column, name) < 0:
                raise ValueError(f"a negative position at generated line {line + 1}")
            yield Segment(line, column, source, original_line, original_column, named)
