"""shardcheck's Python side: `trace` (a PyTorch function to a spec),
check_layout (trace and check in one call, for tests) and a pytest plugin
(shardcheck.pytest_plugin). PyTorch is imported on first use, so that
`python3 -m shardcheck` can look for a Python that has it."""

_API = {"check_layout": "api", "trace_function": "api", "LayoutError": "api", "TraceError": "record"}


def __getattr__(name):
    if name in _API:
        import importlib
        return getattr(importlib.import_module("." + _API[name], __name__), name)
    raise AttributeError(name)


__all__ = list(_API)
