"""Shared strategies and a program driver for the property suites (not a test module)."""

from __future__ import annotations

import copy
from typing import Any
from collections.abc import Callable, Iterable, Mapping

from hypothesis import strategies as st
from returns.result import Success

from rea.evidence import (
    ARCHITECTURES,
    AUTHORITY,
    CONFIDENCE,
    DEFAULT_PREDICATE,
    ISOLATION,
    SUBJECT_FORMATS,
    Provider,
    Subject,
    create_evidence,
    create_profile,
)
from rea.program import Context, Outcome, ReadJsonFile, ReportProgress, ServerFacts

SAFE = 2**53 - 1

# ------------------------------------------------------------------ JSON values

json_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-SAFE, SAFE)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
json_keys = st.text(max_size=8)


def json_values(
    scalars: st.SearchStrategy = json_scalars, keys: st.SearchStrategy = json_keys, max_leaves: int = 12
) -> st.SearchStrategy:
    return st.recursive(
        scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
        max_leaves=max_leaves,
    )


json_value = json_values()
json_object = st.dictionaries(json_keys, json_value, max_size=4)

# ------------------------------------------------------------------ Evidence parts

nonempty = st.text(min_size=1, max_size=10)
hex64 = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
evidence_ids = hex64.map(lambda h: "ev_" + h)

providers = st.builds(Provider, id=nonempty, name=nonempty, version=st.none() | nonempty)
versioned_providers = st.builds(Provider, id=nonempty, name=nonempty, version=nonempty)

subjects = st.builds(
    Subject,
    name=nonempty,
    sha256=hex64,
    format=st.sampled_from(SUBJECT_FORMATS),
    architecture=st.none() | st.sampled_from(ARCHITECTURES),
    local_path=st.text(max_size=10),
)
environments = st.none() | st.fixed_dictionaries(
    {
        "id": nonempty,
        "platform": nonempty,
        "architecture": nonempty,
        "isolation": st.sampled_from(ISOLATION),
    }
)
locations = st.one_of(
    st.fixed_dictionaries({"kind": st.just("address"), "address": nonempty}),
    st.fixed_dictionaries({"kind": st.just("address-range"), "start": nonempty, "end": nonempty}),
    st.fixed_dictionaries({"kind": st.just("artifact-path"), "path": nonempty}),
    st.fixed_dictionaries({"kind": st.just("file-offset"), "offset": st.integers(0, SAFE)}),
    st.fixed_dictionaries(
        {"kind": st.just("file-offset-range"), "start": st.integers(0, SAFE), "end": st.integers(0, SAFE)}
    ),
)
predicate_types = st.sampled_from([DEFAULT_PREDICATE, "rea.process-capture/v1", "custom/v1"]) | nonempty


@st.composite
def evidence_kwargs(
    draw: st.DrawFn, payload: st.SearchStrategy = json_value, params: st.SearchStrategy = json_object
) -> dict[str, Any]:
    with_profile = draw(st.booleans())
    provider = draw(versioned_providers if with_profile else providers)
    profile = None
    if with_profile:
        profile = create_profile(provider, draw(st.integers(1, 5)), draw(params))
    return {
        "provider": provider,
        "operation": draw(nonempty),
        "parameters": draw(params),
        "normalized_result": draw(payload),
        "subject": draw(st.none() | subjects),
        "analysis_profile": profile,
        "predicate_type": draw(predicate_types),
        "raw_result": draw(payload),
        "confidence": draw(st.sampled_from(CONFIDENCE)),
        "authority": draw(st.sampled_from(AUTHORITY)),
        "environment": draw(environments),
        "limitations": draw(st.lists(st.text(max_size=8), max_size=3)),
        "locations": draw(st.lists(locations, max_size=3)),
        "evidence_links": draw(st.lists(evidence_ids, max_size=3)),
    }


evidences = evidence_kwargs().map(lambda kw: create_evidence(**kw).unwrap())
_small = json_values(max_leaves=4)
small_evidences = evidence_kwargs(_small, st.dictionaries(json_keys, _small, max_size=2)).map(
    lambda kw: create_evidence(**kw).unwrap()
)

# ------------------------------------------------------------------ tree helpers


def reorder_keys(value: Any) -> Any:
    """The same JSON value with every object's keys inserted in reverse order."""
    if isinstance(value, dict):
        return {k: reorder_keys(value[k]) for k in reversed(list(value))}
    if isinstance(value, list):
        return [reorder_keys(v) for v in value]
    return value


def paths(tree: Any, prefix: tuple = ()) -> Iterable[tuple]:
    """Every path (tuple of keys/indexes) to a node of a JSON tree, root included."""
    yield prefix
    if isinstance(tree, dict):
        for k, v in tree.items():
            yield from paths(v, prefix + (k,))
    elif isinstance(tree, list):
        for i, v in enumerate(tree):
            yield from paths(v, prefix + (i,))


def get_path(tree: Any, path: tuple) -> Any:
    for step in path:
        tree = tree[step]
    return tree


def with_change(tree: Any, path: tuple, change: Callable[[Any], Any]) -> Any:
    """A deep copy of tree where the node at path is replaced by change(node)."""
    out = copy.deepcopy(tree)
    if not path:
        return change(out)
    parent = get_path(out, path[:-1])
    parent[path[-1]] = change(parent[path[-1]])
    return out


# ------------------------------------------------------------------ programs

CTX = Context(
    server=ServerFacts(
        package="rea-py", version="0.1.0", sdk_version="test", server_path="/bin/rea", started_at="2024-01-01T00:00:00Z"
    ),
    max_response_bytes=10_485_760,
)


def drive(produced: Any, read_json: Any = None, by_path: Mapping[str, Any] | None = None) -> Outcome:
    """Run a program: an Outcome is returned as is; a generator gets None for ReportProgress and
    Success(read_json) for ReadJsonFile, or, with `by_path`, the answer scripted for the file's path."""
    if isinstance(produced, Outcome):
        return produced
    reply: Any = None
    while True:
        try:
            effect = produced.send(reply)
        except StopIteration as stop:
            return stop.value
        if isinstance(effect, ReportProgress):
            reply = None
        elif isinstance(effect, ReadJsonFile):
            reply = Success(read_json) if by_path is None else by_path[effect.path]
        else:  # pragma: no cover - no other effect is scripted here
            raise AssertionError(f"unscripted effect {effect!r}")


def json_program(program_fn: Callable[..., Any]) -> Callable[..., Any]:
    """A @typed program called with JSON arguments: they are structured into its tool's argument record first,
    as the gate (rea.workflows.table.typed_entry) does."""
    from rea.catalog import BY_NAME
    from rea.wire.convert import structure

    record = BY_NAME[program_fn.__name__].args_type
    return lambda session, args, ctx: program_fn(session, structure(args, record).unwrap(), ctx)
