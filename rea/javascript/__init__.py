"""The JavaScript / Electron application family: pure graph, resolution, workflows and views."""
