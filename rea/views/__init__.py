"""The views family: inspect_analysis_view, one selected view of Evidence already made (rea.views.family)."""
