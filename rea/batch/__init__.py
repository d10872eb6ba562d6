"""Fleet triage, the pure half: which first analysis each kind of file gets, what an item's
outcome is, and what the batch's summary and exit status say. The runner (pools, Ray,
progress, the streaming bundle writer) lives in `effects/batch/`."""
