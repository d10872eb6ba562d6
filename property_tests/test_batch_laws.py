"""Laws of the batch core: manifests of hostile text parse or get a canonical error, every digest is
analysed once at its first path, outcomes do not depend on the order items were identified in,
and the streamed bundle bytes equal the canonical form of the whole bundle."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Success

from rea.batch.inputs import manifest_paths
from rea.batch.items import Analysed, Identified, Work, exit_status, outcomes, work_list
from rea.batch.kinds import PLANS
from rea.bundle import manifest_rows, manifests, merged_manifests, stream_chunks
from rea.canonical_json import canonicalize
from rea.errors import CATEGORY_BY_CODE
from rea.evidence import Provider, Subject, create_evidence
from rea.local_paths import is_local_path

FORMATS = st.sampled_from(["elf", "pe", "zip", "tar", "wasm", "apk", "asar", "javascript", "file", "plist"])
DIGESTS = st.sampled_from(["a" * 64, "b" * 64, "c" * 64, "d" * 64])


@given(st.text(max_size=400))
@settings(max_examples=300)
def test_a_manifest_of_any_text_parses_to_absolute_paths_or_a_canonical_error(text):
    parsed = manifest_paths(text, "/lists/feed.txt")
    if isinstance(parsed, Success):
        for path in parsed.unwrap():
            assert is_local_path(path) and path.startswith("/")
    else:
        error = parsed.failure()
        assert error.code in CATEGORY_BY_CODE and error.details["field"] == "inputs" and error.details["line"] >= 1


ITEM = st.builds(
    lambda path, digest, fmt, broken: (
        Identified(path=path, error={"error": {"code": "target_unavailable"}})
        if broken
        else Identified(path=path, sha256=digest, format=fmt)
    ),
    st.from_regex(r"/[a-z]{1,3}(/[a-z]{1,3}){0,2}", fullmatch=True),
    DIGESTS,
    FORMATS,
    st.booleans(),
)
ITEMS = st.lists(ITEM, max_size=12, unique_by=lambda i: i.path)


@given(ITEMS, st.randoms())
def test_each_digest_is_analysed_once_at_its_first_path_whatever_the_order(items, rng):
    work = work_list(items)
    assert len({w.sha256 for w in work}) == len(work)
    for w in work:
        assert w.path == min(i.path for i in items if i.sha256 == w.sha256)
    shuffled = list(items)
    rng.shuffle(shuffled)
    answers = {w.sha256: Analysed(sha256=w.sha256, evidence_ids=("ev_" + w.sha256,)) for w in work}
    assert work_list(shuffled) == work
    assert outcomes(shuffled, answers) == outcomes(items, answers)
    rows = outcomes(items, answers)
    assert len(rows) == len(items) and [r.path for r in rows] == sorted(i.path for i in items)
    assert exit_status(rows, False) == (1 if any(i.sha256 is None for i in items) else 0)
    assert exit_status(rows, True) == 130


@given(st.lists(st.tuples(DIGESTS, st.sampled_from(["op_a", "op_b"]), st.integers(0, 3)), max_size=6))
def test_streamed_bundle_bytes_are_the_canonical_bundle(specs):
    provider = Provider(id="p", name="P", version="1")
    records = {}
    for digest, operation, n in specs:
        e = create_evidence(
            provider=provider,
            operation=operation,
            parameters={"n": n},
            normalized_result={"n": n},
            subject=Subject(name="x", sha256=digest, format="elf", architecture=None, local_path="/x"),
        ).unwrap()  # fmt: skip
        records[e.evidence_id] = e
    ordered = [records[k] for k in sorted(records)]
    streamed = b"".join(
        stream_chunks(merged_manifests(manifest_rows(e) for e in ordered), (canonicalize(e.to_json()) for e in ordered))
    )
    whole = {**manifests(ordered), "bundle_version": 2, "records": [e.to_json() for e in ordered], "unknowns": []}
    assert streamed == canonicalize(whole)


_WORK = st.fixed_dictionaries(
    {
        "path": st.text(min_size=1, max_size=20).map(lambda t: "/" + t),
        "sha256": st.text("0123456789abcdef", min_size=64, max_size=64),
        "kind": st.sampled_from(sorted(PLANS)),
        "build": st.text(max_size=12),
    }
)


@given(_WORK, _WORK)
def test_an_answer_key_names_its_digest_and_changes_with_any_fact_it_rests_on(a, b):
    def key(facts):
        work = Work(path=facts["path"], sha256=facts["sha256"], plan=PLANS[facts["kind"]])
        return work.answer_key(facts["build"])

    assert key(a).startswith(a["sha256"] + ".") and key(a) == key(dict(a))
    same = all(a[k] == b[k] or (k == "kind" and PLANS[a[k]] == PLANS[b[k]]) for k in a)
    assert (key(a) == key(b)) == same
