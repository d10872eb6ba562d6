"""Public group: Evidence records, the id rule, the canonical error and canonical JSON (light: no catalog)."""

from rea.errors import ReaError as ReaError
from rea.evidence import (
    AnalysisProfile as AnalysisProfile,
    Evidence as Evidence,
    Provider as Provider,
    Subject as Subject,
    compute_evidence_id as compute_evidence_id,
    parse_evidence as parse_evidence,
)
from rea.library.canonical import canonical_bytes as canonical_bytes, canonical_digest as canonical_digest
