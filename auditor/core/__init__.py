"""The ground floor: errors, findings (codes, severities), names, JSON and dtype helpers, the version."""
