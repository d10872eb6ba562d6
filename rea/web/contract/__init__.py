"""The web family's catalog rows, one module per tool group: browser observation, scenarios, scripts."""
