"""What the Objective-C and Swift readers decode, as records: the pure core's input to the four projections.

A record that does not decode is an `Undecoded` (its address, when known, and why), so a
projection tells decoded from invalid by type, not by looking for an `error` key.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.apple_metadata.records import ObjcProperty

MethodType = Literal["instance", "class"]


@attrs.frozen(kw_only=True)
class Undecoded:
    address: int | None
    error: str
    slot: int | None = None


@attrs.frozen(kw_only=True)
class RawMethod:
    selector: str
    types: str | None
    imp: int | None
    method_type: MethodType
    entry: int


@attrs.frozen(kw_only=True)
class RawIvar:
    name: str
    type_encoding: str | None
    offset: int | None
    size: int
    alignment: int | None
    entry: int


@attrs.frozen(kw_only=True)
class RawClass:
    address: int
    name: str
    super_class: str | None
    superclass_address: int | None
    superclass_chain: tuple[str, ...]
    chain_problem: str | None
    metaclass_address: int | None
    is_root_class: bool
    instance_size: int
    swift: bool
    methods: tuple[RawMethod, ...]
    protocols: tuple[str, ...]
    ivars: tuple[RawIvar, ...]
    properties: tuple[ObjcProperty, ...]


@attrs.frozen(kw_only=True)
class RawProtocol:
    address: int
    name: str
    adopted_protocols: tuple[str, ...]
    methods: tuple[RawMethod, ...]
    optional_methods: tuple[RawMethod, ...]
    properties: tuple[ObjcProperty, ...]


@attrs.frozen(kw_only=True)
class RawCategory:
    address: int
    name: str
    class_name: str | None
    class_source: Literal["local", "external", "unresolved"]
    instance_methods: tuple[RawMethod, ...]
    class_methods: tuple[RawMethod, ...]
    protocols: tuple[str, ...]
    properties: tuple[ObjcProperty, ...]


@attrs.frozen(kw_only=True)
class SwiftDescriptor:
    address: int
    kind: str
    name: str
    qualified_name: str
    module: str | None
    nested_in_extension: bool
    generic: bool
    chain_problem: str | None


@attrs.frozen(kw_only=True)
class SwiftLists:
    """__swift5_types and __swift5_protos, each read up to the bound, with how many entries each lists."""

    types: tuple[SwiftDescriptor | Undecoded, ...]
    types_listed: int
    protocols: tuple[SwiftDescriptor | Undecoded, ...]
    protocols_listed: int


def problem(record: object) -> str | None:
    """Why a decoded record is only partial (a superclass or parent chain cut short), else None."""
    return getattr(record, "chain_problem", None)
