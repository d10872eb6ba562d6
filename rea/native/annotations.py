"""Analyst annotations of one target: the pure store model.

angr keeps no comments, names or bookmarks, so REA keeps them, per target digest and
analysis profile. This module holds the state, the edits, their validation and the
overlay onto an analysis snapshot; effects/native/annotations.py reads and writes the
file under a lock (read, apply here, write atomically), so concurrent writers never
lose an update. A store that does not parse is refused, never reset.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import attrs
from returns.result import Failure, Result, Success

from rea.errors import ReaError, invalid_request
from rea.native.addresses import normalize

SCHEMA_VERSION = 1
MAX_NAME = 255
MAX_TEXT = 65_536
MAX_ENTRIES = 100_000
MAX_STORE_BYTES = 64 * 1024 * 1024
_TEXT_CONTROLS_ALLOWED = frozenset("\n\t")
TABLES = ("names", "comments", "inline_comments", "bookmarks", "functions")


@attrs.frozen(kw_only=True)
class Annotations:
    """Everything an analyst said about one target; tables are address -> value."""

    revision: int = 0
    names: Mapping[str, str] = attrs.field(factory=dict)
    comments: Mapping[str, str] = attrs.field(factory=dict)
    inline_comments: Mapping[str, str] = attrs.field(factory=dict)
    bookmarks: Mapping[str, str] = attrs.field(factory=dict)
    functions: Mapping[str, Mapping[str, Any]] = attrs.field(factory=dict)


EMPTY = Annotations()


@attrs.frozen(kw_only=True)
class Edit:
    """One change: set (value is text) or clear (value None) entries of tables, atomically.

    `changes` is a tuple of (table, address, value); a function record's value is a mapping."""

    changes: tuple[tuple[str, str, Any], ...]


def _bad_character(text: str, allowed: frozenset[str]) -> str | None:
    for ch in text:
        if (ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 or ch in "\u2028\u2029") and ch not in allowed:
            return f"U+{ord(ch):04X}"
    return None


def check_name(text: str, field: str = "name") -> Result[str, ReaError]:
    """A name is one line of at most MAX_NAME characters with no control characters (the name itself)."""
    if not text.strip():
        return Failure(invalid_request(f"{field} is empty", field=field, accepted="a non-empty name"))
    if len(text) > MAX_NAME:
        return Failure(
            invalid_request(
                f"{field} has {len(text)} characters, over the {MAX_NAME}-character limit",
                field=field,
                accepted=f"a name of at most {MAX_NAME} characters",
            )
        )
    bad = _bad_character(text, frozenset())
    if bad is not None:
        return Failure(
            invalid_request(
                f"{field} contains the control character {bad}",
                field=field,
                accepted="a name without control characters (no newlines, tabs or escapes)",
            )
        )
    return Success(text)


def check_text(text: str, field: str = "comment") -> Result[str, ReaError]:
    """A comment may span lines (LF, tab) but carries no other control character and stays bounded (the
    comment itself)."""
    if len(text) > MAX_TEXT:
        return Failure(
            invalid_request(
                f"{field} has {len(text)} characters, over the {MAX_TEXT}-character limit",
                field=field,
                accepted=f"text of at most {MAX_TEXT} characters",
            )
        )
    bad = _bad_character(text, _TEXT_CONTROLS_ALLOWED)
    if bad is not None:
        return Failure(
            invalid_request(
                f"{field} contains the control character {bad}",
                field=field,
                accepted="text whose only control characters are newline and tab",
            )
        )
    return Success(text)


def apply(state: Annotations, edit: Edit) -> Result[Annotations, ReaError]:
    """The state after `edit` (all of it or none of it), one revision later."""
    tables: dict[str, dict[str, Any]] = {t: dict(getattr(state, t)) for t in TABLES}
    for table, address, value in edit.changes:
        if value is None:
            tables[table].pop(address, None)
        else:
            tables[table][address] = value
    if sum(len(t) for t in tables.values()) > MAX_ENTRIES:
        return Failure(
            ReaError(
                code="resource_constraint",
                message=f"the annotation store would hold more than {MAX_ENTRIES} entries; nothing was changed",
                details={"resource": "annotations", "limit": MAX_ENTRIES},
                action="Clear annotations you no longer need (unset_bookmark, empty comments), then retry.",
            )
        )
    return Success(Annotations(revision=state.revision + 1, **tables))


def to_json(state: Annotations, sha256: str, profile_digest: str) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "target_sha256": sha256,
        "analysis_profile_digest": profile_digest,
        "revision": state.revision,
        **{t: dict(sorted(getattr(state, t).items())) for t in TABLES},
    }


def corrupted(path: str, why: str) -> ReaError:
    return ReaError(
        code="artifact_integrity_mismatch",
        message=f"The annotation store {path} is damaged ({why}); it was left untouched and nothing was changed.",
        details={"reason": "annotation_store_corrupted", "path": path, "problem": why},
        action="Restore the file from a backup or an exported Evidence bundle, or move it aside to start empty.",
    )


def _table(raw: Any, table: str) -> dict[str, Any] | str:
    if not isinstance(raw, dict):
        return f"{table} is not an object"
    for address, value in raw.items():
        if normalize(address) != address:
            return f"{table} key {address!r} is not a canonical address"
        if table == "functions":
            if not isinstance(value, dict):
                return f"functions[{address}] is not an object"
            continue
        if not isinstance(value, str):
            return f"{table}[{address}] is not text"
        checked = (
            check_name(value, table) if table in ("names",) else check_text(value, table)
        )  # bookmarks may be unnamed ("") and are text
        problem = checked.swap().value_or(None)  # the check's refusal, None when the text passes
        if problem is not None:
            return problem.message
    return dict(raw)


def from_json(raw: Any, path: str, sha256: str, profile_digest: str) -> Result[Annotations, ReaError]:
    """Strict parse of a stored document: any deviation is corruption, reported with what was wrong."""
    if not isinstance(raw, dict):
        return Failure(corrupted(path, "the document is not a JSON object"))
    expected = {"schema_version", "target_sha256", "analysis_profile_digest", "revision", *TABLES}
    if set(raw) != expected:
        return Failure(corrupted(path, f"fields {sorted(set(raw) ^ expected)} are unexpected or missing"))
    if raw["schema_version"] != SCHEMA_VERSION:
        return Failure(corrupted(path, f"schema_version {raw['schema_version']!r} is not {SCHEMA_VERSION}"))
    if raw["target_sha256"] != sha256 or raw["analysis_profile_digest"] != profile_digest:
        return Failure(corrupted(path, "it belongs to another target or analysis profile"))
    if not isinstance(raw["revision"], int) or isinstance(raw["revision"], bool) or raw["revision"] < 0:
        return Failure(corrupted(path, "revision is not a non-negative integer"))
    tables: dict[str, dict[str, Any]] = {}
    for table in TABLES:
        parsed = _table(raw[table], table)
        if isinstance(parsed, str):
            return Failure(corrupted(path, parsed))
        tables[table] = parsed
    return Success(Annotations(revision=raw["revision"], **tables))


RAW_KEY = "annotation_store"
EDITS = frozenset(
    {
        "set_comment",
        "set_inline_comment",
        "set_address_name",
        "set_addresses_names",
        "set_bookmark",
        "unset_bookmark",
        "annotate_native_function",
    }
)


def restorable(records: Any) -> list[tuple[str, str, Annotations]]:
    """The latest store each target and profile's annotation edits carried, from imported Evidence
    (their raw_result): what import_evidence_bundle merges back into the local store."""
    latest: dict[tuple[str, str], Annotations] = {}
    for evidence in records:
        raw = evidence.raw_result
        if evidence.operation not in EDITS or not isinstance(raw, dict) or RAW_KEY not in raw:
            continue
        document = raw[RAW_KEY]
        if not isinstance(document, dict):
            continue
        key = (str(document.get("target_sha256")), str(document.get("analysis_profile_digest")))
        parsed = from_json(document, f"Evidence {evidence.evidence_id}", *key).value_or(None)
        if parsed is not None and (key not in latest or parsed.revision > latest[key].revision):
            latest[key] = parsed
    return [(sha, digest, state) for (sha, digest), state in sorted(latest.items())]


def merge(state: Annotations, incoming: Annotations) -> Annotations:
    """Restore from an imported bundle: incoming entries win where both have one, nothing is removed."""
    tables = {t: {**getattr(state, t), **getattr(incoming, t)} for t in TABLES}
    return Annotations(revision=state.revision + 1, **tables)


# ------------------------------------------------------------------ overlay


def overlay(snapshot: Mapping[str, Any], state: Annotations) -> dict[str, Any]:
    """The snapshot as the analyst sees it: names renamed, the annotations beside.

    Procedures and symbols at a named address take the analyst's name; a named address with
    no symbol gains an analyst symbol row, so listings, dossiers and searches agree."""
    out = dict(snapshot)
    out["annotations"] = state
    if not state.names:
        return out
    if "procedures" in snapshot:
        out["procedures"] = [
            {**p, "name": state.names[p["address"]], "original_name": p["name"]} if p["address"] in state.names else p
            for p in snapshot["procedures"]
        ]
    symbols, placed = [], set()
    for s in snapshot.get("symbols", ()):
        if s.get("address") in state.names:
            placed.add(s["address"])
            s = {**s, "name": state.names[s["address"]], "source": "analyst"}
        symbols.append(s)
    for address, name in sorted(state.names.items()):
        if address not in placed:
            symbols.append(
                {"name": name, "address": address, "kind": "other", "source": "analyst", "size": 0, "exported": False}
            )
    out["symbols"] = symbols
    return out


def of(snapshot: Mapping[str, Any]) -> Annotations:
    found = snapshot.get("annotations")
    return found if isinstance(found, Annotations) else EMPTY


def annotate_pseudocode(text: str | None, proc: Mapping[str, Any], state: Annotations) -> str | None:
    """angr's pseudocode as the analyst named it: the procedure's engine name replaced by the
    analyst's (whole identifiers only) and its entry comments above it as a C comment."""
    if text is None:
        return None
    original = proc.get("original_name")
    if original and original != proc["name"]:
        text = re.sub(rf"(?<![A-Za-z0-9_$]){re.escape(original)}(?![A-Za-z0-9_$])", proc["name"], text)
    said = [state.comments.get(proc["address"]), state.inline_comments.get(proc["address"])]
    header = [line for note in said if note for line in note.replace("*/", "* /").splitlines()]
    return "".join(f"// {line}\n" for line in header) + text
