"""Objective-C and Swift metadata read from a Mach-O image's own sections, on any host. Pure."""
