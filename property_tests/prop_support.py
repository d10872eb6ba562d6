"""Shared strategies and a program driver for the property suites (not a test module)."""

from __future__ import annotations

import base64
import copy
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import strategies as st
from returns.result import Success

from rea.artifacts.model import (
    EntryFact,
    InventoryFacts,
)
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
from rea.session import Session, record
from rea.session_tools.programs import unknowns

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


@cache
def seeds() -> tuple[bytes, ...]:
    found = []
    work = Path(tempfile.mkdtemp(prefix="rea-layout-seeds-"))
    (work / "s.c").write_text("int g = 1; int main(void) { return g; }\n")
    for compiler, name in (("gcc", "a.out"), ("x86_64-w64-mingw32-gcc", "a.exe")):
        if shutil.which(compiler):
            subprocess.run([compiler, "-o", str(work / name), str(work / "s.c")], check=True, capture_output=True)
            found.append((work / name).read_bytes())
    for name in ("gcc-amd64-darwin-exec", "fat-gcc-386-amd64-darwin-exec"):
        encoded = GO_MACHO / f"{name}.base64"
        if encoded.exists():
            found.append(base64.b64decode(encoded.read_text()))
    if not found:
        pytest.skip("no compiler or Mach-O test data to seed the hostile inputs")
    return tuple(found)


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    seed = draw(st.sampled_from(seeds()))
    data = bytearray(seed)
    # corrupt header-region bytes most often: that is where the tables are described
    for _ in range(draw(st.integers(1, 24))):
        span = draw(st.sampled_from((64, 512, 4096, len(data))))
        at = draw(st.integers(0, min(span, len(data)) - 1))
        data[at] = draw(st.integers(0, 255))
    cut = draw(st.one_of(st.none(), st.integers(0, len(data))))
    return bytes(data if cut is None else data[:cut])


@st.composite
def sessions(draw: st.DrawFn, max_records: int = 4, max_unknowns: int = 3) -> Session:
    """A session with generated Evidence and unknowns made (and revised) by the real programs."""
    session = record(Session(), draw(st.lists(small_evidences, max_size=max_records)))
    for i in range(draw(st.integers(0, max_unknowns))):
        args = {
            "question": f"q{i} {draw(st.text(max_size=6))}",
            "domain": draw(st.sampled_from(["net", "fs"])),
            "severity": draw(st.sampled_from(SEVERITIES)),
        }
        ids = list(session.evidence)
        if ids and draw(st.booleans()):
            args["supporting_evidence_ids"] = [draw(st.sampled_from(ids))]
        outcome = drive(record_unknown(session, args, CTX))
        if isinstance(outcome.reply, Success):
            session = outcome.session
            head = outcome.reply.unwrap()["result"]
            for _ in range(draw(st.integers(0, 2))):
                outcome = drive(
                    update_unknown(
                        session,
                        {
                            "unknown_id": head["unknown_id"],
                            "expected_revision": head["revision"],
                            "status": draw(st.sampled_from(["open", "investigating", "blocked"])),
                            "severity": draw(st.sampled_from(SEVERITIES)),
                        },
                        CTX,
                    )
                )
                session = outcome.session
                head = outcome.reply.unwrap()["result"]
    return session


@st.composite
def trees(draw):
    """Root files plus one nested container with children, as reader facts."""
    top = draw(names)
    inner = draw(names)
    entries = [
        EntryFact(
            index=i,
            parent=None,
            logical_path=n,
            entry_kind="file",
            sha256=draw(digests),
            size=3,
            hash_status="verified",
            executable=draw(st.booleans()),
        )
        for i, n in enumerate(top)
    ]
    container = len(entries)
    entries.append(
        EntryFact(
            index=container,
            parent=None,
            logical_path="nested.zip/x" if "nested.zip/x" not in top else "nested2.zip",
            entry_kind="file",
            sha256="ff" * 32,
            size=9,
            format="zip",
            hash_status="verified",
        )
    )
    for j, n in enumerate(inner):
        entries.append(
            EntryFact(
                index=container + 1 + j,
                parent=container,
                logical_path=n,
                entry_kind="file",
                sha256=draw(digests),
                size=3,
                hash_status="verified",
            )
        )
    return InventoryFacts(
        root_name="r.zip", root_sha256="ee" * 32, root_size=10, root_format="zip", entries=tuple(entries)
    )


GO_MACHO = Path("/usr/share/go-1.19/src/debug/macho/testdata")


record_unknown = json_program(unknowns.record_unknown)


update_unknown = json_program(unknowns.update_unknown)


SEVERITIES = ("low", "medium", "high", "critical")


names = st.lists(
    st.text("abAB/._-x", min_size=1, max_size=6).filter(
        lambda s: (
            not s.startswith("/")
            and ".." not in s
            and "//" not in s
            and not s.endswith("/")
            and s not in (".",)
            and "/./" not in s
            and not s.startswith("./")
        )
    ),
    min_size=0,
    max_size=12,
    unique=True,
)


digests = st.sampled_from([f"{i:02x}" * 32 for i in range(6)])
