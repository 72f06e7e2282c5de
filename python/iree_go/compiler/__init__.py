"""gree's compiler with IREE's Python API (``iree.compiler``)."""

from .tools import *  # noqa: F401,F403  (re-exports core, binaries as IREE does)
from .tools import binaries, core  # noqa: F401
