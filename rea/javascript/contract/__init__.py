"""The JavaScript family's catalog rows: the application tools (analysis, traces, comparisons) and the runtime,
recovery and Electron tools."""
