"""What a feature trace's breadth-first walk hands on (rea.javascript.trace): the reach of one run, and both
runs merged. Typed dictionaries, not records: the walk grows them in place as it goes, and the trace reads
their keys; their shape is fixed, so each key has its one type here."""

from __future__ import annotations

from typing import NotRequired, TypedDict

from rea.javascript.records.trace import Frontier, TracePath


class Reached(TypedDict):
    """What one breadth-first reach found: each node's depth and the edge that first reached it, the edges
    used (indexes into the graph's edges), what a bound kept out, and the nodes `expand` declined."""

    depth: dict[str, int]
    parent: dict[str, tuple[str, int]]
    edges: list[int]
    frontier: list[dict[str, str]]
    truncated: list[str]
    omitted_nodes: set[str]
    omitted_edges: set[int]
    pruned: dict[str, int]
    omitted_paths: NotRequired[int]  # set once the reach's terminal paths are listed


class Walked(TypedDict):
    """A trace's reach in both runs it takes (incoming, outgoing) merged, with the terminal paths it found."""

    depth: dict[str, int]
    used: set[int]
    paths: list[TracePath]
    frontier: list[Frontier]
    limited: set[str]
    omitted_nodes: set[str]
    omitted_edges: set[int]
    omitted_paths: int
    pruned: dict[str, int]
