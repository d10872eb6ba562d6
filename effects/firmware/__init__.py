"""Run unblob as an owned, bounded process and publish what it extracts (IO for rea.firmware)."""
