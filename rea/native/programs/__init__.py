"""The native family's programs (PROGRAMS: tool name -> program), one module per tool group; common and
surface_steps hold the steps they share."""
