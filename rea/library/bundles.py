"""Public group: strict bundle parsing (loads the session-tool catalog the unknown records are checked by)."""

from rea.bundle import ParsedBundle as ParsedBundle, parse_bundle as parse_bundle
