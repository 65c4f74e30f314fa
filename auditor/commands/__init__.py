"""What the command line adds around the runner: output helpers, explain, the pre-commit hook, diff."""
