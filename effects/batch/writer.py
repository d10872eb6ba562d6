"""The streaming bundle writer: every record is checked, spooled to its own file beside the
output, and the bundle is published atomically at the end by streaming the spool in id order.

Only each record's manifest contribution stays in memory, never the records, so a batch of
thousands of files is written without holding its ledger. The bytes are the export format
(`rea.bundle.stream_chunks`), so `import_evidence_bundle` reads the result unchanged.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import anyio
from returns.result import Failure, Result, Success

from effects import fs
from effects.batch.identify import quiet
from rea.bundle import ParsedBundle, manifest_rows, merged_manifests, parse_bundle, stream_chunks
from rea.canonical_json import canonicalize
from rea.errors import ReaError, invalid_request
from rea.evidence import Evidence, parse_evidence
from rea.program import PublishReceipt
from rea.results import all_of

MAX_RESUME_BYTES = 4 << 30


class SpoolWriter:
    def __init__(self, destination: str) -> None:
        self.destination = os.path.abspath(destination)
        self.spool = tempfile.mkdtemp(
            prefix=f".{os.path.basename(self.destination)}.", suffix=".rea-batch", dir=os.path.dirname(self.destination)
        )
        self.rows: dict[str, Mapping[str, list[Any]]] = {}
        self.unknowns: list[Mapping[str, Any]] = []

    def add(self, raw_records: Sequence[Any]) -> Result[list[tuple[str, str | None]], ReaError]:
        """Check every record strictly (its id is recomputed), then spool them all, or none when
        one fails; answer (id, subject sha256) pairs."""
        return all_of(parse_evidence(raw) for raw in raw_records).map(self._spooled)  # parsing ends at a failure

    def _spooled(self, parsed: list[Evidence]) -> list[tuple[str, str | None]]:
        kept = []
        for evidence in parsed:
            if evidence.evidence_id not in self.rows:
                with open(os.path.join(self.spool, evidence.evidence_id), "wb") as handle:
                    handle.write(canonicalize(evidence.to_json()))
                self.rows[evidence.evidence_id] = manifest_rows(evidence)
            kept.append((evidence.evidence_id, None if evidence.subject is None else evidence.subject.sha256))
        return kept

    def resume(self) -> Result[dict[str, list[str]], ReaError]:
        """Spool the existing output bundle's records (verified in full); answer digest -> its record ids."""
        loaded = fs.read_json_file(self.destination, MAX_RESUME_BYTES)
        return loaded.bind(parse_bundle).bind(self._resumed)

    def _resumed(self, bundle: ParsedBundle) -> Result[dict[str, list[str]], ReaError]:
        added = self.add([e.to_json() for e in bundle.records])
        return added.map(lambda pairs: self._recalled(bundle, pairs))

    def _recalled(self, bundle: ParsedBundle, added: list[tuple[str, str | None]]) -> dict[str, list[str]]:
        self.unknowns = list(bundle.unknowns)
        by_digest: dict[str, list[str]] = {}
        for evidence_id, sha256 in added:
            if sha256 is not None:
                by_digest.setdefault(sha256, []).append(evidence_id)
        return {k: sorted(v) for k, v in by_digest.items()}

    def _records(self, ids: list[str]) -> Iterator[bytes]:
        for evidence_id in ids:
            with open(os.path.join(self.spool, evidence_id), "rb") as handle:
                yield handle.read()

    def chunks(self) -> Iterator[bytes]:
        ids = sorted(self.rows)
        unknowns = sorted(self.unknowns, key=lambda r: (r["unknown_id"], r["revision"]))
        return stream_chunks(merged_manifests(self.rows[i] for i in ids), self._records(ids), unknowns)

    def publish(self, overwrite: bool) -> Result[PublishReceipt, ReaError]:
        return anyio.run(fs.publish_atomically, self.destination, self.chunks(), overwrite, quiet, "publishing batch")

    def close(self) -> None:
        shutil.rmtree(self.spool, ignore_errors=True)


def writable_output(path: str, overwrite: bool) -> Result[None, ReaError]:
    """An output that cannot be written is refused before any work starts."""
    problem = None
    if not os.path.isdir(os.path.dirname(os.path.abspath(path))):
        problem = f"the directory of {path!r} does not exist"
    elif os.path.isdir(path):
        problem = f"{path!r} is a directory"
    elif os.path.lexists(path) and not overwrite:
        problem = f"{path!r} already exists"
    if problem is None:
        return Success(None)
    return Failure(
        invalid_request(
            problem, field="out", accepted="a new file in an existing directory (or --overwrite / --resume)"
        )
    )
