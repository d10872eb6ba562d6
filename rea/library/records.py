"""Public group: Evidence records, the id rule, the canonical error and canonical JSON (light: no catalog)."""

from rea.errors import ReaError as ReaError
from rea.evidence import (
    AnalysisProfile as AnalysisProfile,
)
from rea.evidence import (
    Evidence as Evidence,
)
from rea.evidence import (
    Provider as Provider,
)
from rea.evidence import (
    Subject as Subject,
)
from rea.evidence import (
    compute_evidence_id as compute_evidence_id,
)
from rea.evidence import (
    parse_evidence as parse_evidence,
)
from rea.library.canonical import canonical_bytes as canonical_bytes
from rea.library.canonical import canonical_digest as canonical_digest
