"""The views family's wire records: the view requests, the view results and the summaries they carry."""
