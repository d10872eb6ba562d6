"""Compiled Interface Builder documents as one graph: objects, hierarchy, outlet and action connections.

Reads only the object table of rea.apple_artifacts.nib, so NIBArchive and keyed-archive
nibs are one code path. What is read, and why it is enough without instantiating a
class: AppKit nibs list every object with its parent in NSIBObjectData's
NSObjectsKeys/NSObjectsValues; UIKit nibs keep subviews in UISubviews; views in both
keep NSSubviews. Connections are objects whose class is a connector (NSNibOutletConnector,
NSNibControlConnector, UIRuntimeOutletConnection, UIRuntimeEventConnection, ...), each
with a source, a destination and a label (the outlet name or the action selector).
A class this table does not recognise is kept, kind `unknown`, and named in
`unknown_classes`: never guessed.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs

from rea.apple_artifacts.nib import NibObject, ObjectTable
from rea.apple_artifacts.records import IbProvider

PROVIDER = IbProvider(id="rea-artifact-graph", version="1", tool_version="rea-nib-reader/1")
VALUE_CLASSES = frozenset(
    "NSString NSMutableString NSLocalizableString NSArray NSMutableArray NSDictionary NSMutableDictionary NSSet "
    "NSMutableSet NSNumber NSValue NSData NSMutableData NSDate NSObject NSIBObjectData IBClassReference "
    "NSNull UINibKeyValuePair NSAttributedString NSMutableAttributedString NSParagraphStyle".split()
)
SOURCE_KEYS, DESTINATION_KEYS, LABEL_KEYS = (
    ("NSSource", "UISource"),
    ("NSDestination", "UIDestination"),
    ("NSLabel", "UILabel"),
)
_KINDS = (
    ("constraint", ("LayoutConstraint",)),
    ("layout_guide", ("LayoutGuide",)),
    ("view_controller", ("ViewController", "WindowController", "Controller")),
    ("control", ("Button", "Control", "TextField", "Slider", "Switch", "Stepper", "Picker", "SearchField",
                 "ComboBox", "TextView", "ColorWell")),
    ("view", ("View", "Window", "Label", "Menu", "MenuItem", "Cell", "Bar", "Item", "Column", "Box", "Panel")),
    ("resource", ("Image", "Color", "Font", "CustomResource", "Sound", "Storyboard")),
)  # fmt: skip
LIMITATIONS = [
    "The graph reflects the archive fields REA recognises and the connections it finds; private or unrecognised "
    "fields stay unknown.",
    "A target-action selector is an Interface Builder observation; it does not prove the binary implements it.",
    "Constraints' effect, runtime visibility, views made in code and pixel geometry are not inferred.",
]


def is_connection(class_name: str) -> bool:
    return class_name.endswith(("Connector", "Connection"))


def connection_kind(class_name: str) -> str:
    if "Outlet" in class_name:
        return "outlet"
    if "Control" in class_name or "Event" in class_name or "Action" in class_name:
        return "action"
    return "segue" if "Segue" in class_name else "other"


def node_kind(class_name: str, custom: str | None) -> str:
    if class_name in ("UIProxyObject",) or "Placeholder" in class_name or custom == "FirstResponder":
        return "placeholder"
    if class_name == "NSCustomObject":
        return "view_controller" if custom and custom.endswith("Controller") else "external_object"
    for name in (custom, class_name):
        for kind, suffixes in _KINDS:
            if name and any(s in name for s in suffixes):
                return kind
    return "unknown"


@attrs.frozen(kw_only=True)
class Connection:
    """One connector object (outlet, action, segue): its endpoints' indices and label, as the archive holds them."""

    id: str
    kind: str
    source_id: str | None
    destination_id: str | None
    label: str | None
    class_name: str


class Document:
    """One document's object table with the lookups the projection needs."""

    def __init__(self, table: ObjectTable) -> None:
        self.table = table
        self.by_index = {o.index: o for o in table.objects}

    def field(self, obj: NibObject, keys: tuple[str, ...]) -> Any:
        return next((value for key, value in obj.fields if key in keys), None)

    def ref(self, value: Any) -> NibObject | None:
        return self.by_index.get(value["$ref"]) if isinstance(value, dict) and "$ref" in value else None

    def text(self, value: Any) -> str | None:
        if isinstance(value, str):
            return value
        target = self.ref(value)
        if target is None:
            return None
        found = self.field(target, ("NS.bytes", "NS.string"))
        return found if isinstance(found, str) else None

    def members(self, value: Any) -> Iterator[NibObject]:
        holder = self.ref(value)
        if holder is None:
            return
        for key, item in holder.fields:
            if key in ("UINibEncoderEmptyKey", "NS.objects"):
                member = self.ref(item)
                if member is not None:
                    yield member

    def custom_class(self, obj: NibObject) -> str | None:
        for key in ("NSClassName", "UIClassName", "UIOriginalClassName", "IBClassName"):
            found = self.text(self.field(obj, (key,)))
            if found:
                return found
        reference = self.ref(self.field(obj, ("IBClassReference",)))
        return self.text(self.field(reference, ("IBClassName",))) if reference else None

    def owners(self) -> set[int]:
        """The File's Owner placeholders: NSRoot of each NSIBObjectData."""
        found = (self.ref(self.field(o, ("NSRoot",))) for o in self.table.objects if o.class_name == "NSIBObjectData")
        return {o.index for o in found if o is not None}

    def interface_objects(self) -> list[NibObject]:
        return [o for o in self.table.objects if o.class_name not in VALUE_CLASSES and not is_connection(o.class_name)]

    def hierarchy(self) -> list[tuple[int | None, int]]:
        """(parent index or None for the document root, child index) pairs, each child once."""
        pairs: dict[int, int | None] = {}
        for data in (o for o in self.table.objects if o.class_name == "NSIBObjectData"):
            children = list(self.members(self.field(data, ("NSObjectsKeys",))))
            parents = list(self.members(self.field(data, ("NSObjectsValues",))))
            for child, parent in zip(children, parents, strict=False):
                if child.index != parent.index:
                    pairs.setdefault(child.index, parent.index)
        for obj in self.table.objects:
            for member in self.members(self.field(obj, ("NSSubviews", "UISubviews"))):
                pairs.setdefault(member.index, obj.index)
        root = self.by_index.get(self.table.root) if self.table.root is not None else None
        if root is not None:
            for member in self.members(self.field(root, ("UINibTopLevelObjectsKey",))):
                pairs.setdefault(member.index, None)
        return [(parent, child) for child, parent in pairs.items()]

    def connections(self) -> list[Connection]:
        found = []
        for obj in self.table.objects:
            if not is_connection(obj.class_name):
                continue
            source, destination = self.ref(self.field(obj, SOURCE_KEYS)), self.ref(self.field(obj, DESTINATION_KEYS))
            found.append(
                Connection(
                    id=str(obj.index),
                    kind=connection_kind(obj.class_name),
                    source_id=str(source.index) if source else None,
                    destination_id=str(destination.index) if destination else None,
                    label=self.text(self.field(obj, LABEL_KEYS)),
                    class_name=obj.class_name,
                )
            )
        return found
