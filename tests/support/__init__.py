"""Helpers the tests (and tools/, bench/) import: checkpoint builders over the fixture data in the top-level
``fixtures/`` folder, the stand-in Hub, the CLI runner, the browser client. Not part of the ``auditor``
distribution. Nothing here imports pytest at module level except ``resources`` (skips and failures)."""
