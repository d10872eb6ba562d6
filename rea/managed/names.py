"""Names of metadata entities by token: types (with nesting), their members, and resolution scopes.

Built once from the rows the reader returned; a token that points nowhere resolves to None
(or to its hex form where a signature needs some text), never to an exception.
"""

from __future__ import annotations

from collections.abc import Mapping

from rea.managed.facts import AssemblyFacts, Row
from rea.managed.signatures import type_spec

TABLE_NUMBERS: Mapping[str, int] = {
    "Module": 0x00, "TypeRef": 0x01, "TypeDef": 0x02, "Field": 0x04, "MethodDef": 0x06, "Param": 0x08,
    "InterfaceImpl": 0x09, "MemberRef": 0x0A, "Constant": 0x0B, "CustomAttribute": 0x0C, "StandAloneSig": 0x11,
    "Event": 0x14, "Property": 0x17, "ModuleRef": 0x1A, "TypeSpec": 0x1B, "ImplMap": 0x1C, "Assembly": 0x20,
    "AssemblyRef": 0x23, "File": 0x26, "ExportedType": 0x27, "ManifestResource": 0x28, "NestedClass": 0x29,
    "GenericParam": 0x2A, "MethodSpec": 0x2B, "GenericParamConstraint": 0x2C,
}  # fmt: skip
TABLE_NAMES: Mapping[int, str] = {number: name for name, number in TABLE_NUMBERS.items()}


def token(table: str, row: int) -> str:
    return f"0x{TABLE_NUMBERS[table] << 24 | row:08x}"


def hex_token(value: int) -> str:
    return f"0x{value & 0xFFFFFFFF:08x}"


def _text(row: Row, key: str) -> str:
    value = row.values.get(key)
    return value if isinstance(value, str) else ""


def _int(row: Row, key: str) -> int:
    value = row.values.get(key)
    return value if isinstance(value, int) else 0


def member_owners(types: tuple[Row, ...], list_key: str, total: int) -> dict[int, int]:
    """Member row -> owning TypeDef row, from each type's run start (ECMA II.22.37: runs end at the next start)."""
    owners: dict[int, int] = {}
    starts = [(max(_int(t, list_key), 1), t.index) for t in types]
    for position, (start, owner) in enumerate(starts):
        end = starts[position + 1][0] if position + 1 < len(starts) else total + 1
        for member in range(start, min(max(end, start), total + 1)):
            owners[member] = owner
    return owners


class Names:
    """Token -> readable name for one assembly's metadata."""

    def __init__(self, facts: AssemblyFacts) -> None:
        self.facts = facts
        self.typedefs = {r.index: r for r in facts.rows("TypeDef")}
        self.typerefs = {r.index: r for r in facts.rows("TypeRef")}
        self.methods = {r.index: r for r in facts.rows("MethodDef")}
        self.fields = {r.index: r for r in facts.rows("Field")}
        self.memberrefs = {r.index: r for r in facts.rows("MemberRef")}
        self.assemblyrefs = {r.index: r for r in facts.rows("AssemblyRef")}
        self.modulerefs = {r.index: r for r in facts.rows("ModuleRef")}
        self.methodspecs = {r.index: _int(r, "Method") for r in facts.rows("MethodSpec")}
        self.enclosing = {_int(r, "NestedClass"): _int(r, "EnclosingClass") for r in facts.rows("NestedClass")}
        types = facts.rows("TypeDef")
        self.method_owner = member_owners(types, "MethodList", len(self.methods))
        self.field_owner = member_owners(types, "FieldList", len(self.fields))
        self.typespecs = {r.index: r.values.get("Signature") for r in facts.rows("TypeSpec")}
        self._typedef_names: dict[int, str] = {}
        self._resolving: set[int] = set()

    def typedef(self, row: int, depth: int = 0) -> str | None:
        if row in self._typedef_names:
            return self._typedef_names[row]
        found = self.typedefs.get(row)
        if found is None:
            return None
        own = _text(found, "TypeName")
        namespace = _text(found, "TypeNamespace")
        outer = self.enclosing.get(row)
        if outer and outer != row and depth < 64:
            name = f"{self.typedef(outer, depth + 1) or hex_token(0x02000000 | outer)}/{own}"
        else:
            name = f"{namespace}.{own}" if namespace else own
        self._typedef_names[row] = name
        return name

    def typeref(self, row: int, depth: int = 0) -> str | None:
        found = self.typerefs.get(row)
        if found is None:
            return None
        own = _text(found, "TypeName")
        namespace = _text(found, "TypeNamespace")
        scope = _int(found, "ResolutionScope")
        if scope >> 24 == 0x01 and depth < 64:  # nested in another TypeRef
            return f"{self.typeref(scope & 0xFFFFFF, depth + 1)}/{own}"
        name = f"{namespace}.{own}" if namespace else own
        if scope >> 24 == 0x23:
            ref = self.assemblyrefs.get(scope & 0xFFFFFF)
            return f"[{_text(ref, 'Name')}]{name}" if ref else name
        return name

    def type_token(self, value: int) -> str | None:
        table, row = value >> 24, value & 0xFFFFFF
        if table == 0x02:
            return self.typedef(row)
        if table == 0x01:
            return self.typeref(row)
        if table == 0x1B:
            return self.typespec(row) or f"typespec {hex_token(value)}"
        return None

    def typespec(self, row: int) -> str | None:
        """A TypeSpec's decoded type; one that refers back to itself while decoding stays unnamed."""
        blob = self.typespecs.get(row)
        if row in self._resolving or not isinstance(blob, bytes):
            return None
        self._resolving.add(row)
        try:
            return type_spec(blob, self.type_text)
        finally:
            self._resolving.discard(row)

    def type_text(self, value: int) -> str:
        return self.type_token(value) or hex_token(value)

    def method(self, row: int) -> str | None:
        found = self.methods.get(row)
        if found is None:
            return None
        owner = self.typedef(self.method_owner.get(row, 0))
        return f"{owner}::{_text(found, 'Name')}" if owner else _text(found, "Name")

    def field(self, row: int) -> str | None:
        found = self.fields.get(row)
        if found is None:
            return None
        owner = self.typedef(self.field_owner.get(row, 0))
        return f"{owner}::{_text(found, 'Name')}" if owner else _text(found, "Name")

    def memberref(self, row: int) -> str | None:
        found = self.memberrefs.get(row)
        if found is None:
            return None
        parent = _int(found, "Class")
        table = parent >> 24
        if table in (0x01, 0x02, 0x1B):
            owner = self.type_token(parent)
        elif table == 0x1A:
            ref = self.modulerefs.get(parent & 0xFFFFFF)
            owner = f"[.module {_text(ref, 'Name')}]" if ref else None
        elif table == 0x06:
            owner = self.method(parent & 0xFFFFFF)
        else:
            owner = None
        return f"{owner}::{_text(found, 'Name')}" if owner else _text(found, "Name")

    def member(self, value: int) -> str | None:
        """A MethodDef, Field or MemberRef token's qualified name."""
        table, row = value >> 24, value & 0xFFFFFF
        if table == 0x06:
            return self.method(row)
        if table == 0x04:
            return self.field(row)
        if table == 0x0A:
            return self.memberref(row)
        if table == 0x2B:  # a generic method instantiation: the method it instantiates
            method = self.methodspecs.get(row, 0)
            return self.member(method) if method >> 24 in (0x06, 0x0A) else None
        return None

    def declaring_type(self, value: int) -> str | None:
        """The type a constructor (MethodDef or MemberRef) belongs to: a custom attribute's type."""
        table, row = value >> 24, value & 0xFFFFFF
        if table == 0x06:
            return self.typedef(self.method_owner.get(row, 0))
        if table == 0x0A:
            found = self.memberrefs.get(row)
            parent = _int(found, "Class") if found else 0
            name = self.type_token(parent) if parent >> 24 in (0x01, 0x02) else None
            return name.split("]", 1)[-1] if name else None
        return None
