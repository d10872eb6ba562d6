"""Web effects: a caller's loopback Chromium read through the one DevTools boundary (effects.cdp)."""
