"""Input validation against a tool's canonical schema, as canonical errors.

The MCP SDK validates nothing, so every argument object passes through here
before a program sees it. The error names the field and what is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import orjson
from returns.result import Failure, Result, Success

from rea.canonical_json import canonical_text
from rea.errors import ReaError, invalid_request
from rea.local_paths import LOCAL_PATH_ACCEPTED, LOCAL_PATH_PATTERN, local_path_problem


@cache
def _validator(schema_text: str) -> Any:
    # imported on first use: jsonschema costs ~25 ms, and MCP startup never validates
    import jsonschema

    return jsonschema.Draft202012Validator(orjson.loads(schema_text))


MAX_ECHO = 200


def clip(text: str) -> str:
    """Echo caller-supplied text only up to MAX_ECHO characters: errors name, they do not repeat."""
    return text if len(text) <= MAX_ECHO else f"{text[:MAX_ECHO]}... ({len(text)} characters)"


def _field(error: Any) -> str:
    path = "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in error.absolute_path)
    return path[1:] if path.startswith(".") else (path or "arguments")


def _is_local_path_rule(error: Any) -> bool:
    return (
        error.validator == "pattern"
        and isinstance(error.schema, dict)
        and error.schema.get("pattern") == LOCAL_PATH_PATTERN
    )


def _accepted(error: Any) -> str:
    schema = error.schema if isinstance(error.schema, dict) else {}
    if _is_local_path_rule(error):
        return LOCAL_PATH_ACCEPTED
    if error.validator == "additionalProperties":
        return (
            "only: " + ", ".join(sorted(schema.get("properties", {}))) if schema.get("properties") else "no arguments"
        )
    if error.validator == "required":
        return "an object with " + ", ".join(schema.get("required", []))
    if "enum" in schema:
        return "one of " + ", ".join(map(str, schema["enum"]))
    kinds = [
        b.get("properties", {}).get("kind", {}).get("const") for b in schema.get("anyOf", ()) if isinstance(b, dict)
    ]
    if kinds and all(isinstance(k, str) for k in kinds):
        return "an object whose kind is one of " + ", ".join(kinds)
    if "pattern" in schema:
        return f"a string matching {schema['pattern']}"
    parts = [str(schema.get("type", "a value"))]
    for key in ("minimum", "maximum", "minLength", "maxLength", "maxItems"):
        if key in schema:
            parts.append(f"{key} {schema[key]}")
    return " ".join(parts)


def validate_arguments(tool: str, schema: Mapping[str, Any], arguments: Any) -> Result[dict[str, Any], ReaError]:
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        return Failure(
            invalid_request(f"{tool} takes a JSON object of arguments", field="arguments", accepted="an object")
        )
    validator = _validator(canonical_text(schema))
    errors = sorted(validator.iter_errors(arguments), key=lambda e: (list(e.absolute_path), e.validator))
    if not errors:
        return Success(arguments)
    best = _best_match(errors)
    field = clip(_field(best))
    if best.validator == "additionalProperties":
        extra = sorted(set(best.instance) - set(best.schema.get("properties", {})))
        field = clip(
            ".".join(filter(None, [field if field != "arguments" else "", extra[0] if extra else ""])) or field
        )
        message = f"{tool}: unknown argument {field!r}"
    elif best.validator == "required":
        missing = [r for r in best.schema.get("required", []) if r not in best.instance]
        field = ".".join(filter(None, [field if field != "arguments" else "", missing[0] if missing else ""])) or field
        message = f"{tool}: required argument {field!r} is missing"
    elif _is_local_path_rule(best):
        message = f"{tool}: argument {field!r} {local_path_problem(best.instance)}; got {clip(repr(best.instance))}"
    else:
        message = f"{tool}: argument {field!r} is invalid: {clip(best.message)}"
    return Failure(
        invalid_request(
            message,
            field=field,
            accepted=_accepted(best),
            tool=tool,
            problem=best.validator,
            operation=tool,
            issues=_issues(_narrowed(errors)),
        )
    )


MAX_ISSUES = 20


def _issues(errors: list[Any]) -> list[dict[str, Any]]:
    """The reference's validation details: one `{path, reason, message}` per violation."""
    return [
        {
            "path": [p if isinstance(p, int) else clip(str(p)) for p in e.absolute_path],
            "reason": e.validator,
            "message": clip(
                f"{e.instance!r} {local_path_problem(e.instance)}" if _is_local_path_rule(e) else e.message
            ),
        }
        for e in errors[:MAX_ISSUES]
    ]


def invalid_combination(tool: str, message: str, field: str, accepted: str) -> ReaError:
    return invalid_request(
        f"{tool}: {message}",
        field=field,
        accepted=accepted,
        tool=tool,
        operation=tool,
        issues=[{"path": [p for p in field.split(".") if p], "reason": "combination", "message": clip(message)}],
    )


DISCRIMINATORS = ("kind", "type")  # the properties whose const names a union's branch


def first_schema_error(schema: Mapping[str, Any], value: Any) -> tuple[str, str] | None:
    """(JSON path, message) of the most relevant violation, or None when the value conforms."""
    errors = list(_validator(canonical_text(schema)).iter_errors(value))
    if not errors:
        return None
    best = _best_match(errors)
    return clip(_field(best)), clip(best.message)


def _branch_errors(error: Any) -> list[Any] | None:
    """For a union told apart by `kind` or `type` (a const per branch): the errors of the branch the value
    names."""
    if error.validator not in ("anyOf", "oneOf") or not isinstance(error.instance, dict):
        return None
    for key in DISCRIMINATORS:
        if key not in error.instance:
            continue
        named = error.instance[key]
        branches = [
            i
            for i, branch in enumerate(error.validator_value)
            if isinstance(branch, dict) and branch.get("properties", {}).get(key, {}).get("const", object()) == named
        ]
        if len(branches) == 1:
            found = [e for e in error.context if e.relative_schema_path and e.relative_schema_path[0] == branches[0]]
            return found or None
    return None


def _narrowed(errors: list[Any]) -> list[Any]:
    """Errors with each discriminated union replaced by its named branch's errors, recursively."""
    out: list[Any] = []
    for e in errors:
        inner = _branch_errors(e)
        out.extend(_narrowed(inner) if inner else [e])
    return out


def _best_match(errors: list[Any]) -> Any:
    from jsonschema.exceptions import best_match

    return best_match(_narrowed(errors))
