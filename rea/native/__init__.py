"""Native binary analysis: provider selection, addresses and queries over an analysis snapshot."""
