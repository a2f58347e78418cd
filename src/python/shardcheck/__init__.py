"""shardcheck's Python side: `trace` (a PyTorch function to a spec) and
check_layout (trace and check in one call, for tests)."""
