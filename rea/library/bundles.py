"""Public group: strict bundle parsing (loads the session-tool catalog the unknown records are checked by)."""

from rea.bundle import ParsedBundle as ParsedBundle
from rea.bundle import parse_bundle as parse_bundle
