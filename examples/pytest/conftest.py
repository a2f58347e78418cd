"""Loads shardcheck's pytest plugin for the tests in this folder, so that
`pytest examples/pytest/test_ulysses_layout.py` runs from a checkout with
no flags: the installed package when there is one (`pip install
./src/python`, whose pytest11 entry point has already loaded the plugin),
else the checkout's src/python. In your own project, the installed package
is all it takes (or `pytest_plugins = ["shardcheck.pytest_plugin"]` in
your top-level conftest.py)."""
import importlib.util
import os
import sys

if importlib.util.find_spec("shardcheck") is None:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src", "python"))

pytest_plugins = ["shardcheck.pytest_plugin"]
