"""Write docs/public/product-catalog.json, the generated projection of the catalog table."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson

from rea import __version__
from rea.catalog import CATALOG, CLI_COMMANDS
from rea.catalog.projection import product_catalog

DEFAULT = Path(__file__).resolve().parents[1] / "docs" / "public" / "product-catalog.json"


def render() -> bytes:
    return (
        orjson.dumps(
            product_catalog(CATALOG, CLI_COMMANDS, __version__), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS
        )
        + b"\n"
    )


def main(argv: list[str] | None = None) -> int:
    target = Path((argv or sys.argv[1:] or [str(DEFAULT)])[0])
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(render())
    print(f"wrote {target} ({target.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
