"""What the asset catalog reader decodes from a .car file, as records.

Their JSON keys are CoreUI's own names (CoreUIVersion, PixelWidth, ...), as REA has always sent
them in a catalog record's `metadata`; the CSI header facts are present only when the header
decoded, and Idiom and Name only when the rendition key carries them.
"""

from __future__ import annotations

from typing import Literal

import attrs

from rea.wire.schema import field


@attrs.frozen(kw_only=True)
class CatalogMetadata:
    """The CARHEADER facts, the KEYFORMAT attribute names and the BOM variables."""

    core_ui_version: int = field(key="CoreUIVersion")
    storage_version: int = field(key="StorageVersion")
    timestamp: int = field(key="Timestamp")
    rendition_count: int = field(key="RenditionCount")
    main_version: str = field(key="MainVersion")
    version_string: str = field(key="VersionString")
    uuid: str = field(key="UUID")
    schema_version: int | None = field(key="SchemaVersion")
    key_format: tuple[str, ...] = field(key="KeyFormat", default=())
    variables: tuple[str, ...] = field(key="Variables", default=())


@attrs.frozen(kw_only=True)
class RenditionMetadata:
    """A rendition key's attributes and, when its CSI header decoded, the header's facts."""

    attributes: dict[str, int] = field(key="Attributes")
    csi_version: int | None = field(key="CSIVersion", omit_none=True, default=None)
    rendition_flags: int | None = field(key="RenditionFlags", omit_none=True, default=None)
    pixel_width: int | None = field(key="PixelWidth", omit_none=True, default=None)
    pixel_height: int | None = field(key="PixelHeight", omit_none=True, default=None)
    scale: float | None = field(key="Scale", omit_none=True, default=None)
    pixel_format: str | None = field(key="PixelFormat", omit_none=True, default=None)
    color_space_id: int | None = field(key="ColorSpaceID", omit_none=True, default=None)
    layout: int | None = field(key="Layout", omit_none=True, default=None)
    size_on_disk: int | None = field(key="SizeOnDisk", omit_none=True, default=None)
    undecoded: tuple[str, ...]
    idiom: str | None = field(key="Idiom", omit_none=True, default=None)
    name: str | None = field(key="Name", omit_none=True, default=None)


@attrs.frozen(kw_only=True)
class CarEntry:
    """One record of a catalog: the catalog itself (index 0) or a rendition, in RENDITIONS order."""

    index: int
    kind: Literal["catalog", "rendition"]
    asset_name: str | None
    rendition_name: str | None
    metadata: CatalogMetadata | RenditionMetadata
