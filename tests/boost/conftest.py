"""Shared by the boost tests: AutoBoost (a process-wide singleton) starts afresh in each test."""
import pytest

from mindseed import boost


@pytest.fixture(autouse=True)
def _fresh_auto_boost():
    boost.AutoBoost._instance = None       # AutoBoost is a process-wide singleton
    yield
    boost.AutoBoost._instance = None
