"""The adb device tools: the adb host protocol's answers read purely (effects/adb does the IO)."""
