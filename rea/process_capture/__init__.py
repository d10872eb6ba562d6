"""Process capture: an owned run of a declared executable, observed within limits, and two runs compared."""
