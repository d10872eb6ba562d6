"""The JavaScript family's programs, one module per tool group: the analysis, traces over it, comparisons of
analyses, and the runtime, recovery and Electron tools."""
