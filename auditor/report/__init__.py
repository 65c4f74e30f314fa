"""The report of one checkpoint, the report of sections, and one root cause per error."""
