"""Offline Discord harness for tests: the ``offline`` package (see its docstring for the API and an
example), under the name the tests import; pytest fixtures live in ``tests.harness.fixtures``."""

from offline import *  # noqa: F403
from offline import __all__ as __all__
