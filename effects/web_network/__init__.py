"""IO of the web family's offline tools: capture files, Debian's mitmproxy flow reader, PNG files."""
