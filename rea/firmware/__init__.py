"""Firmware images: regions found by signature and extraction of their contents (unblob runs in effects)."""
