"""Laws of the artifact graph (pure) and of the readers on generated and mutated archives."""

from __future__ import annotations

import io
import os
import tempfile
import zipfile

import anyio
import attrs
from hypothesis import example, given, settings
from hypothesis import strategies as st
from returns.result import Success

from effects.artifacts import extract, inventory
from effects.progress import Progress
from prop_support import trees
from rea.artifacts import build_inventory, compare_inventories, parse_inventory
from rea.artifacts.graph import SECTIONS, page_inventory
from rea.artifacts.model import (
    ExtractArtifact,
    InventoryArtifact,
    InventoryFacts,
    LimitHit,
    Limits,
    Omission,
)
from rea.errors import CATEGORY_BY_CODE


def reorder(facts: InventoryFacts, seed: int) -> InventoryFacts:
    """The same tree reported in another order (parents still before children)."""
    import random

    top = [e for e in facts.entries if e.parent is None]
    random.Random(seed).shuffle(top)
    mapping = {e.index: i for i, e in enumerate(top)}
    children = [e for e in facts.entries if e.parent is not None]
    random.Random(seed + 1).shuffle(children)
    out = [attrs.evolve(e, index=mapping[e.index]) for e in top]
    for k, e in enumerate(children):
        out.append(attrs.evolve(e, index=len(top) + k, parent=mapping[e.parent]))
    return InventoryFacts(
        root_name=facts.root_name,
        root_sha256=facts.root_sha256,
        root_size=facts.root_size,
        root_format=facts.root_format,
        entries=tuple(out),
    )


@given(trees(), st.integers(0, 1000))
def test_ids_and_graph_are_stable_under_reader_order(facts, seed):
    assert build_inventory(facts, Limits()) == build_inventory(reorder(facts, seed), Limits())


@given(trees(), st.sampled_from(["hit", "omission"]))
def test_coverage_is_monotone(facts, extra):
    before = build_inventory(facts, Limits())["coverage"]
    more = (
        attrs.evolve(facts, limit_hits=(LimitHit(limit="max_entries", value=1, logical_path=None, message="m"),))
        if extra == "hit"
        else attrs.evolve(facts, omissions=(Omission(logical_path="p", entry_type="FIFO", reason="r"),))
    )
    after = build_inventory(more, Limits())["coverage"]
    assert before["status"] == "complete" and after["status"] == "unknown" and before["scope"] == after["scope"]


@given(trees(), st.integers(1, 7))
def test_pages_partition_every_section(facts, limit):
    complete = build_inventory(facts, Limits())
    for section in SECTIONS:
        seen, offset = [], 0
        while True:
            page = page_inventory(complete, {section: (offset, limit)})[section]
            seen.extend(page["items"])
            if page["next_offset"] is None:
                break
            offset = page["next_offset"]
        assert seen == complete[section]


def _mirror(result):
    swap = {"added": "removed", "removed": "added"}
    changes = [
        {
            **c,
            "classification": swap.get(c["classification"], c["classification"]),
            "left_occurrence_id": c["right_occurrence_id"],
            "right_occurrence_id": c["left_occurrence_id"],
            "left_artifact_id": c["right_artifact_id"],
            "right_artifact_id": c["left_artifact_id"],
        }
        for c in result["changes"]
    ]
    summary = {**result["summary"], "added": result["summary"]["removed"], "removed": result["summary"]["added"]}
    status = swap.get(result["status"], result["status"])
    return {
        **result,
        "changes": changes,
        "summary": summary,
        "status": status,
        "left_manifest_id": result["right_manifest_id"],
        "right_manifest_id": result["left_manifest_id"],
        "left_coverage": result["right_coverage"],
        "right_coverage": result["left_coverage"],
        "uncertainty": sorted(
            u.replace("left", "\0").replace("right", "left").replace("\0", "right") for u in result["uncertainty"]
        ),
    }


@given(trees(), trees())
def test_comparison_is_symmetric(a, b):
    left = parse_inventory(page_inventory(build_inventory(a, Limits()), {})).unwrap()
    right = parse_inventory(page_inventory(build_inventory(b, Limits()), {})).unwrap()
    assert compare_inventories(right, left) == _mirror(compare_inventories(left, right))
    assert compare_inventories(left, left)["status"] == "unchanged"


# ---------------------------------------------------------------- readers on mutated bytes

member_names = st.text(st.sampled_from("ab/.-\\A"), min_size=1, max_size=8)


@st.composite
def mutated_zips(draw):
    """A zip or a tar.gz of generated members, then bytes flipped and the tail cut."""
    buf = io.BytesIO()
    members = {name: draw(st.binary(max_size=64)) for name in draw(st.lists(member_names, max_size=6))}
    kind = draw(st.sampled_from(["zip", "tgz"]))
    if kind == "zip":
        with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, body in members.items():
                zf.writestr(name, body)
    else:
        import tarfile

        with tarfile.open(fileobj=buf, mode="w:gz") as tf:
            for name, body in members.items():
                info = tarfile.TarInfo(name)
                info.size = len(body)
                tf.addfile(info, io.BytesIO(body))
    data = bytearray(buf.getvalue())
    for _ in range(draw(st.integers(0, 4))):
        if data:
            data[draw(st.integers(0, len(data) - 1))] = draw(st.integers(0, 255))
    if draw(st.booleans()) and data:
        data = data[: draw(st.integers(0, len(data)))]
    return bytes(data)


@settings(max_examples=60)
@given(mutated_zips())
@example(b"\x1f\x8b\x08")  # a gzip header cut short: the standard library raises TypeError on it
@example(  # a member whose name is empty: zipfile's is_dir() raises IndexError on it
    data=b"PK\x03\x04\x14\x00\x00\x00\x08\x00V.~]\x12\xd9A\xff\x05\x00\x00\x00\x03\x00\x00\x00\x08\x00\x00\x00AAAAAAA\\c``\x00\x00PK\x03\x04\x14\x00\x00\x00\x08\x00V.~]\xff\x12\xd9A\x04\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00Ac`\x00\x00PK\x03\x04\x14\x00\x00\x00\x08\x00V.~]\x12\xd9A\xff\x05\x00\x00\x00\x03\x00\x00\x00\x06\x00\x00\x00AAAAAAc``\x00\x00PK\x03\x04\x14\x00\x00\x00\x08\x00V.~]\x8b\xc7%\xb1\x07\x00\x00\x00\x05\x00\x00\x00\x08\x00\x00\x00AAAAAAAAc````\x04\x00PK\x01\x02\x14\x03\x14\x00\x00\x00\x08\x00V.~]\x12\xd9A\xff\x05\x00\x00\x00\x03\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01\x00\x00\x00\x00AAAAAAA\\PK\x01\x02\x14\x03\x14\x00\x00\x00\x08\x00V.~]\xff\x12\xd9A\x04\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01+\x00\x00\x00\x00PK\x01\x02\x14\x03\x14\x00\x00\x00\x08\x00V.~]\x12\xd9A\xff\x05\x00\x00\x00\x03\x00\x00\x00\x06\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01N\x00\x00\x00AAAAAAPK\x01\x02\x14\x03\x14\x00\x00\x00\x08\x00V.~]\x8b\xc7%\xb1\x07\x00\x00\x00\x05\x00\x00\x00\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x01w\x00\x00\x00AAAAAAAAPK\x05\x06\x00\x00\x00\x00\x04\x00\x04\x00\xcf\x00\x00\x00\xa4\x00\x00\x00\x00\x00",
).via("discovered failure")
def test_mutated_archives_never_raise_and_never_write_outside(data):
    with tempfile.TemporaryDirectory() as scratch:
        path = os.path.join(scratch, "m.zip" if data[:2] != b"\x1f\x8b" else "m.tar.gz")
        with open(path, "wb") as handle:
            handle.write(data)
        before = set(os.listdir(scratch))

        async def main():
            got = await inventory(InventoryArtifact(path=path, limits=Limits()), Progress(None))
            out = None
            if isinstance(got, Success):
                facts = got.unwrap()
                chains = tuple((e.logical_path,) for e in facts.entries if e.parent is None and e.entry_kind == "file")
                out = await extract(ExtractArtifact(path=path, chains=chains, limits=Limits()), Progress(None))
            return got, out

        got, out = anyio.run(main)
        assert set(os.listdir(scratch)) == before
        for result in (got, out):
            if result is None:
                continue
            if not isinstance(result, Success):
                assert result.failure().code in CATEGORY_BY_CODE
            elif isinstance(result.unwrap(), tuple):
                extraction = result.unwrap()[1]
                root = os.path.realpath(extraction.output_root)
                for dirpath, _, files in os.walk(root):
                    for f in files:
                        assert os.path.realpath(os.path.join(dirpath, f)).startswith(root + os.sep)
                assert extraction.containment_verified
                import shutil

                shutil.rmtree(root)


flat_values = (
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.integers()
    | st.text()
    | st.floats(allow_nan=False, allow_infinity=False)
)


@given(st.dictionaries(st.text(max_size=6), flat_values, max_size=6))
def test_flat_ids_are_canonical_sha256(body):
    from rea.artifacts.graph import flat_sha256
    from rea.canonical_json import CanonicalJsonError, canonical_sha256

    try:
        expected = canonical_sha256(body)
    except CanonicalJsonError:
        return
    assert flat_sha256(body) == expected


@given(
    st.dictionaries(
        st.text(st.characters(max_codepoint=127), max_size=8),
        st.none() | st.text() | st.integers(-(2**53) + 1, 2**53 - 1),
        max_size=6,
    ),
    st.sampled_from(["art_", "occ_", "edge_", "ic_", "agm_"]),
)
def test_graph_ids_equal_prefixed_canonical_sha256(body, prefix):
    from rea.artifacts.graph import _id
    from rea.canonical_json import CanonicalJsonError, canonical_sha256

    try:
        expected = prefix + canonical_sha256(body)
    except CanonicalJsonError:
        return
    assert _id(prefix, body) == expected


def _run_scripted(program, session, args, facts):
    """Drive an artifact program: the reader answers `facts`, the target's stamp never moves."""
    from rea.program import ReportProgress, StampTarget, TargetStamp

    produced, reply, walks = program(session, args, None), None, 0
    while True:
        try:
            effect = produced.send(reply)
        except StopIteration as stop:
            return stop.value, walks
        walks += isinstance(effect, InventoryArtifact)
        if isinstance(effect, StampTarget):
            reply = Success(TargetStamp(own="unmoved"))
        elif isinstance(effect, InventoryArtifact):
            reply = Success(facts)
        else:
            assert isinstance(effect, ReportProgress), effect
            reply = None


@given(trees(), st.lists(st.tuples(st.integers(0, 16), st.integers(1, 7)), min_size=1, max_size=6))
def test_pages_served_from_the_retained_inventory_are_the_pages_a_walk_gives(facts, windows):
    from rea.artifacts.programs import inventory_artifact
    from rea.artifacts.records import InventoryArgs
    from rea.session import Session, Target, open_target
    from rea.wire.convert import structure

    target = Target(
        path="/t/r.zip", name="r.zip", sha256="ee" * 32, size=10, format="zip", kind="file", stamp="unmoved"
    )
    opened = open_target(Session(), target, "run", None)
    session, walks = opened, 0
    for offset, limit in windows:
        window = {
            f"{s}_{k}": v for s in ("node", "occurrence", "edge") for k, v in (("offset", offset), ("limit", limit))
        }
        args = structure(window, InventoryArgs).unwrap()
        served, walked = _run_scripted(inventory_artifact, session, args, facts)
        fresh, _ = _run_scripted(inventory_artifact, opened, args, facts)
        assert served.reply.unwrap() == fresh.reply.unwrap()
        session, walks = served.session, walks + walked
    assert walks == 1  # the first page walked; every later one was served
