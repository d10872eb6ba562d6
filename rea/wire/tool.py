"""A tool contract built from its typed argument and result records.

`evidence_tool` and `session_tool` are the only way a family declares a tool: the
input schema, the output schema (the result fully typed inside the Evidence
envelope, or under `result` for lifecycle tools), the defaults and the CLI flags
all come from the two types handed in here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rea.catalog.contract import ToolContract
from rea.catalog.input_groups import INPUT_GROUPS
from rea.catalog.schemas import bind_id, evidence_output, input_schema, obj, session_output
from rea.wire.schema import Role, record_schema, schema_of


def args_schema(
    args: type, examples: Iterable[Mapping[str, Any]] | None = None, description: str | None = None
) -> dict[str, Any]:
    """`description`: a union tool's accepted input groups (rea.catalog.input_groups), kept at the root."""
    body = record_schema(args, Role.INPUT)
    return input_schema(
        body["properties"],
        tuple(body.get("required", ())),
        description=description,
        examples=[dict(e) for e in examples] if examples is not None else [{}],
    )


def evidence_tool(
    name: str,
    title: str,
    description: str,
    *,
    args: type,
    result: Any,
    operation: bool = True,
    examples: Iterable[Mapping[str, Any]] | None = None,
    **contract: Any,
) -> ToolContract:
    """A tool whose structuredContent is one Evidence record with `normalized_result: result`."""
    return ToolContract(
        name=name,
        title=title,
        description=description,
        input_schema=args_schema(args, examples, INPUT_GROUPS.get(name)),
        output_schema=evidence_output(schema_of(result, Role.OUTPUT), name if operation else None),
        result_kind="evidence",
        args_type=args,
        result_type=result,
        **contract,
    )


def session_tool(
    name: str,
    title: str,
    description: str,
    *,
    args: type,
    result: Any,
    beside: type | None = None,
    examples: Iterable[Mapping[str, Any]] | None = None,
    **contract: Any,
) -> ToolContract:
    """A lifecycle tool answering `{"result": result}` with no Evidence.

    `beside` is a record whose fields sit next to `result` in structuredContent: our
    facts for a tool whose reference `result` has a type they would change (close_binary's
    `null`)."""
    result_schema = schema_of(result, Role.OUTPUT)
    if beside is None:
        output = session_output(result_schema)
    else:
        extra = record_schema(beside, Role.OUTPUT)
        output = bind_id(obj({"result": result_schema, **extra["properties"]}, ("result", *extra.get("required", ()))))
    return ToolContract(
        name=name,
        title=title,
        description=description,
        input_schema=args_schema(args, examples),
        output_schema=output,
        result_kind="session",
        args_type=args,
        result_type=result,
        **contract,
    )
