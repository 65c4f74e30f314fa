"""Fleet audits: many targets in one run, the same per-target audit as ``st-audit audit``, scheduled by an engine.

``inputs`` says which targets (command line, ``--from FILE``, a Hub organisation, every model folder under a
tree), ``--shard`` takes a stable share of them, ``sink`` writes one JSON line per target as soon as it is done (and
reads a previous run back for ``--resume``), ``work`` is the per-target job every engine runs, ``engines`` holds the
engine interface and its registry (``local``: every core of this machine; ``ray``: an existing Ray cluster), and
``run`` ties them together into one exit code. docs/fleet.md says how to use it.
"""
