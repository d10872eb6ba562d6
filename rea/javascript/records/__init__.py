"""The JavaScript family's wire records (REA 6.x shapes), by what they describe: the shared field vocabulary,
the tools' arguments, the application graph, its semantic companion, the analysis, traces and comparisons, and
the runtime, recovery, reconciliation and Electron records."""
