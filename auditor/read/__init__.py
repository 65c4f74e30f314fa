"""Reading a target: what it is (targets), where it lives (sources: local, Hub, views), one pure header parser, and which files a loader uses (checkpoint)."""
