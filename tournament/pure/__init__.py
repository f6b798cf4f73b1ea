"""A tournament's definition, schedule and results, and what they mean: no process,
socket or clock. Everything here can be computed again from the definition and the
results file, which is why a report is the same however the matches were played."""
