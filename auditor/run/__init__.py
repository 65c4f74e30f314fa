"""The runner every entry point calls: discover the kind, audit each part, gate the result."""
