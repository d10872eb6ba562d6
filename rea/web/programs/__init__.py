"""The web family's programs, one module per tool group: browser observation, scenarios, scripts."""
