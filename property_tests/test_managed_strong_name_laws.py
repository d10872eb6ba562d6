"""Strong-name verification over hostile key and signature blobs: a state and a reason, never a crash."""

from __future__ import annotations

import hashlib

from hypothesis import given
from hypothesis import strategies as st

from rea.managed.facts import CliFacts
from rea.managed.strong_name import verify


def _cli(signature: bytes) -> CliFacts:
    return CliFacts(
        header_offset=0, cb=72, flags=0x9, entry_point=0, metadata_rva=1, metadata_size=1, resources_rva=0,
        resources_size=0, strong_name_rva=1, strong_name_size=len(signature), native_header_rva=0,
        native_header_size=0, ready_to_run_signature=False, strong_name_signature=signature,
        strong_name_digests=(("sha1", hashlib.sha1(b"image").digest()),),
    )  # fmt: skip


_RSA_HEADER = bytes.fromhex("00240000048000009400000006020000002400005253413100040000")


@given(st.binary(max_size=200), st.binary(max_size=200), st.booleans())
def test_any_key_and_signature_get_a_state(key, signature, rsa_shaped):
    blob = _RSA_HEADER + key if rsa_shaped else key
    state, detail = verify(_cli(signature), blob)
    assert state in {"failed", "unverifiable"} and detail
