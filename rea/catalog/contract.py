"""One ToolContract per tool: every advertisement is a projection of this table."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Literal, get_args

import attrs

from rea.catalog.annotations import EFFECT_HINTS, annotations_from_effects
from rea.catalog.cli import Command

# Closed vocabularies: a contract lists the members that are true; an omitted
# known member is false.
ToolEffect = Literal[
    "accessesNetwork",
    "changesUiState",
    "executesForeignCode",
    "idempotent",
    "launchesProcess",
    "mayDiscardData",
    "mutatesDevice",
    "mutatesSession",
    "mutatesTarget",
    "writesFilesystem",
]
EFFECTS: tuple[str, ...] = get_args(ToolEffect)
assert set(EFFECT_HINTS) == set(EFFECTS), "every effect of the closed vocabulary has its annotation hints"
ToolAnnotation = Literal["read_only", "destructive", "idempotent", "open_world"]
ANNOTATIONS: tuple[str, ...] = get_args(ToolAnnotation)
Surface = Literal[
    "official-proxy",
    "enhanced",
    "native-provider",
    "artifact-provider",
    "android-provider",
    "apktool-provider",
    "adb-provider",
    "managed-provider",
    "browser-provider",
    "electron-provider",
    "runtime-provider",
    "application",
    "session",
]
SURFACES: tuple[str, ...] = get_args(Surface)
# What a tool needs of the open target (rea.catalog.availability decides what that means per target)
TargetNeed = Literal["nothing", "target", "container", "provider", "dos-image"]
TARGET_NEEDS: tuple[str, ...] = get_args(TargetNeed)
ClientFeature = Literal["elicitation_form", "elicitation_url", "roots", "sampling"]
CLIENT_FEATURES: tuple[str, ...] = get_args(ClientFeature)


def _members(vocabulary: tuple[str, ...]) -> Callable[[Any, attrs.Attribute[Any], frozenset[str]], None]:
    def check(_instance: Any, attribute: attrs.Attribute[Any], value: frozenset[str]) -> None:
        unknown = set(value) - set(vocabulary)
        if unknown:
            raise ValueError(f"{attribute.name}: {sorted(unknown)} are not in the closed vocabulary {vocabulary}")

    return check


def _frozen(members: Iterable[str]) -> frozenset[str]:
    return frozenset(members)


@attrs.frozen(kw_only=True)
class ToolContract:
    name: str
    title: str
    description: str
    surface: str = attrs.field(validator=attrs.validators.in_(SURFACES))
    input_schema: Mapping[str, Any]
    output_schema: Mapping[str, Any]
    effects: frozenset[str] = attrs.field(converter=_frozen, validator=_members(EFFECTS))
    # True unless audited: results and errors may carry analysis-target text.
    returns_target_content: bool = True
    # nothing: any session; target: any open target; container: an archive, package or directory;
    # provider: a native executable with a bound deep-analysis provider that answers this operation;
    # dos-image: an open DOS MZ or COM target (REA loads it itself, no provider)
    needs: str = attrs.field(default="nothing", validator=attrs.validators.in_(TARGET_NEEDS))
    required_client_features: tuple[str, ...] = ()
    optional_client_features: tuple[str, ...] = ()
    # "session" tools answer {"result": ...}; "evidence" tools answer an Evidence record
    result_kind: str = attrs.field(default="session", validator=attrs.validators.in_(("session", "evidence")))
    # the typed records the schemas were derived from (rea.wire); programs read defaults from args_type
    args_type: Any = None
    result_type: Any = None
    # its `rea` subcommand, derived from the input schema and this declaration (rea.catalog.cli)
    cli: Command | None = None

    def __attrs_post_init__(self) -> None:
        if self.result_kind == "evidence" and "mutatesSession" not in self.effects:
            raise ValueError(f"{self.name} records Evidence, so its effects must include mutatesSession")

    @property
    def requires_target(self) -> bool:
        return self.needs != "nothing"

    @property
    def annotations(self) -> frozenset[str]:
        """Derived from the effect flags (rea.catalog.annotations), never declared."""
        return annotations_from_effects(self.effects)

    def true_effects(self) -> list[str]:
        return sorted(self.effects)

    def true_annotations(self) -> list[str]:
        return sorted(self.annotations)

    def mcp_annotations(self) -> dict[str, bool]:
        return {
            "readOnlyHint": "read_only" in self.annotations,
            "destructiveHint": "destructive" in self.annotations,
            "idempotentHint": "idempotent" in self.annotations,
            "openWorldHint": "open_world" in self.annotations,
        }
