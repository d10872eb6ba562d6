"""The web family's pure core: origin scope, redaction, page model, WebMCP summaries (no IO)."""
