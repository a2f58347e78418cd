"""pytest integration: loaded by the installed package's pytest11 entry
point (`pip install ./src/python`), by `pytest -p shardcheck.pytest_plugin`,
or by `pytest_plugins = ["shardcheck.pytest_plugin"]` in a conftest.py.

The fixture `check_layout` is shardcheck.check_layout with the run's seed
(--shardcheck-seed, else one drawn per session and printed in the header)
and a report folder per test under --shardcheck-reports (default
reports/pytest). A failing test shows the minimal case and the replay
command, and its report lists the seed and the case files, as Hypothesis
reports its falsifying examples."""
import os
import random

import pytest

from . import api


def pytest_addoption(parser):
    g = parser.getgroup("shardcheck")
    g.addoption("--shardcheck-seed", default=None, help="seed of every check_layout (default: random, printed)")
    g.addoption("--shardcheck-reports", default="reports/pytest", help="report folders, one per test")
    g.addoption("--shardcheck-cases", default="1000", help="cases per property")


def _seed(config):
    if not hasattr(config, "_shardcheck_seed"):
        s = config.getoption("--shardcheck-seed")
        config._shardcheck_seed = int(s) if s is not None else random.SystemRandom().randrange(1, 2**31)
    return config._shardcheck_seed


def pytest_report_header(config):
    return f"shardcheck: seed {_seed(config)} (replay with --shardcheck-seed={_seed(config)})"


@pytest.fixture
def check_layout(request):
    config = request.config
    base = os.path.join(config.getoption("--shardcheck-reports"), request.node.name.replace("/", "_"))

    def check(fn, **kw):
        __tracebackhide__ = True
        kw.setdefault("seed", _seed(config))
        kw.setdefault("cases", int(config.getoption("--shardcheck-cases")))
        kw.setdefault("report_dir", base)
        try:
            return api.check_layout(fn, **kw)
        except api.LayoutError as ex:
            request.node.user_properties.append(("shardcheck_seed", ex.seed))
            request.node.user_properties.append(("shardcheck_cases", " ".join(ex.case_files)))
            raise
    return check


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    props = dict(item.user_properties)
    if rep.when == "call" and rep.failed and "shardcheck_seed" in props:
        rep.sections.append(("shardcheck", f"Falsifying layout found with seed {props['shardcheck_seed']}\n"
                             f"case files: {props['shardcheck_cases']}\n"
                             f"replay: pytest --shardcheck-seed={props['shardcheck_seed']} {_here(item)}"))


def _here(item):
    """item's test id with its file relative to the current directory (a
    node id is relative to the rootdir, which need not be where pytest ran)."""
    path = str(getattr(item, "path", None) or item.fspath)
    rest = item.nodeid.split("::", 1)[1] if "::" in item.nodeid else ""
    rel = os.path.relpath(path)
    return rel + ("::" + rest if rest else "")
