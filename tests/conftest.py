"""The suite runs its tests one at a time on a machine with two cores. Its one long computation,
the verdict rules' operating characteristics (audit/simulate.py, docs/stats.md's table:
about a minute and a half of one core), starts in a second process as soon as the tests that
read it are collected, so it runs beside the rest of the suite; `stats_table` waits for it."""
import multiprocessing

import pytest

_started = {}


@pytest.hookimpl(trylast=True)            # after -k and -m have deselected what will not run
def pytest_collection_modifyitems(session, config, items):
    if any("stats_table" in getattr(item, "fixturenames", ()) for item in items):
        from audit import simulate
        pool = multiprocessing.get_context("spawn").Pool(1)
        _started["pool"], _started["table"] = pool, pool.apply_async(simulate.table)


def pytest_sessionfinish(session, exitstatus):
    if "pool" in _started:                # an interrupted or deselected session leaves no worker behind
        _started["pool"].terminate()


@pytest.fixture(scope="session")
def stats_table():
    """Every row of docs/stats.md's first table, as audit.simulate.table() computes it."""
    if "table" in _started:
        return _started["table"].get()
    from audit import simulate
    return simulate.table(jobs=2)