"""DEX descriptors and the Java names people read: one table each way, no guessing.

A class descriptor is `Lcom/example/App$Inner;`; its display name keeps `$`
(`com.example.App$Inner`) so the two convert exactly. Method descriptors
`(ILjava/lang/String;)V` render as `(int, java.lang.String)` / `void`.
"""

from __future__ import annotations

PRIMITIVES = {
    "V": "void",
    "Z": "boolean",
    "B": "byte",
    "S": "short",
    "C": "char",
    "I": "int",
    "J": "long",
    "F": "float",
    "D": "double",
}

# access flag bit -> keyword, in the order Java writes them
ACCESS_FLAGS: tuple[tuple[int, str], ...] = (
    (0x1, "public"),
    (0x2, "private"),
    (0x4, "protected"),
    (0x8, "static"),
    (0x10, "final"),
    (0x20, "synchronized"),
    (0x40, "bridge"),
    (0x80, "varargs"),
    (0x100, "native"),
    (0x200, "interface"),
    (0x400, "abstract"),
    (0x800, "strict"),
    (0x1000, "synthetic"),
    (0x4000, "enum"),
    (0x10000, "constructor"),
    (0x20000, "declared-synchronized"),
)
FIELD_FLAG_NAMES = {0x40: "volatile", 0x80: "transient"}  # bits a field means differently
_SOURCE_KEYWORDS = ("public", "private", "protected", "static", "final", "synchronized", "native", "abstract")


def access_names(flags: int, *, is_field: bool = False) -> tuple[str, ...]:
    names = []
    for bit, name in ACCESS_FLAGS:
        if flags & bit:
            names.append(FIELD_FLAG_NAMES.get(bit, name) if is_field else name)
    return tuple(names)


def class_name(descriptor: str) -> str:
    """`Lcom/a/B;` -> `com.a.B` (array and primitive descriptors render as types)."""
    return type_name(descriptor)


def class_descriptor(name: str) -> str:
    """`com.a.B$C` -> `Lcom/a/B$C;`; a descriptor passes through unchanged."""
    if name.startswith("L") and name.endswith(";"):
        return name
    return "L" + name.replace(".", "/") + ";"


def type_name(descriptor: str) -> str:
    depth = len(descriptor) - len(descriptor.lstrip("["))
    base = descriptor[depth:]
    if base in PRIMITIVES:
        name = PRIMITIVES[base]
    elif base.startswith("L") and base.endswith(";"):
        name = base[1:-1].replace("/", ".")
    else:
        name = base
    return name + "[]" * depth


def split_parameters(descriptor: str) -> tuple[list[str], str]:
    """`(I[Ljava/lang/String;)V` -> (["I", "[Ljava/lang/String;"], "V")."""
    if not descriptor.startswith("(") or ")" not in descriptor:
        return [], descriptor
    inner, _, returned = descriptor[1:].partition(")")
    params, at = [], 0
    while at < len(inner):
        start = at
        while at < len(inner) and inner[at] == "[":
            at += 1
        if at < len(inner) and inner[at] == "L":
            end = inner.find(";", at)
            at = len(inner) if end < 0 else end + 1
        else:
            at += 1
        params.append(inner[start:at])
    return params, returned


def display_signature(owner: str, name: str, descriptor: str, flags: int) -> str:
    """`protected void onCreate(android.os.Bundle)`; a constructor is named by its class."""
    params, returned = split_parameters(descriptor)
    keywords = [k for k in access_names(flags) if k in _SOURCE_KEYWORDS]
    arguments = ", ".join(type_name(p) for p in params)
    if name in ("<init>", "<clinit>"):
        simple = class_name(owner).rsplit(".", 1)[-1]
        label = "static {}" if name == "<clinit>" else f"{simple}({arguments})"
        return " ".join([*keywords, label]) if name == "<init>" else label
    return " ".join([*keywords, type_name(returned), f"{name}({arguments})"])


def top_class(descriptor: str) -> str:
    """The outermost class of a nested one (`La/B$C$D;` -> `a.B`)."""
    return class_name(descriptor).split("$", 1)[0]
