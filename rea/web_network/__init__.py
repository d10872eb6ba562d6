"""The web family's offline core: HAR and mitmproxy flow records, the api-surface grouping, PNG pixel metrics."""
