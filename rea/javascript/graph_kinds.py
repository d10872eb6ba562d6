"""The application graph's vocabulary: its schema, relations, roles and the kinds of file and module it
reads, shared by the graph's passes and by what reads the record (views, comparisons, the runtime scan)."""

from __future__ import annotations

import typing
from collections.abc import Mapping

from rea.javascript.records.arguments import AnalyzeLimits
from rea.javascript.records.fields import Relation
from rea.wire.convert import to_wire

SCHEMA = "rea.javascript-application/v1"
RELATIONS = typing.get_args(Relation)
ROLES = ("main", "preload", "renderer", "utility")
MODULE_KINDS = ("module", "bundled-module", "original-source-module")
IMPORT_KINDS = ("import", "require", "dynamic-import", "re-export")

DEFAULT_LIMITS: Mapping[str, int] = to_wire(AnalyzeLimits())  # written once, in the argument record
LANGUAGE = {
    "javascript": "javascript",
    "typescript": "typescript",
    "tsx": "typescript",
    "type-declaration": "typescript",
}
PARSED_KINDS = ("javascript", "typescript", "tsx")
TEXT_KINDS = ("package-json", "javascript", "typescript", "tsx", "html", "source-map", "tsconfig")
