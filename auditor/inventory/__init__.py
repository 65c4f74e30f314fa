"""Every stored tensor once (inventory), grouped by name template (groups, patterns)."""
