"""Release gating: the policy's rules, lock snapshots and the drift between a lock and a report."""
