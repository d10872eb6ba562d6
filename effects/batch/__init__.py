"""Fleet triage, the IO half: identification, the task function, its two backends (a local
process pool and Ray), the rich progress bar, the streaming bundle writer and the CLI."""
