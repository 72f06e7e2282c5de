"""Process-wide runtime flags (IREE's iree.runtime.flags)."""

import os
import shlex

from ._binding import parse_flags
from . import _trace  # noqa: F401 - writes a --trace_output trace at exit

FUNCTION_INPUT_VALIDATION = True

__all__ = ["parse_flags", "FUNCTION_INPUT_VALIDATION"]


def _load_default_flags_from_env():
    """Parses the flags in ``IREE_PY_RUNTIME_FLAGS`` (as IREE does at import);
    a bad flag raises RuntimeError naming the variable and its value."""
    value = os.environ.get("IREE_PY_RUNTIME_FLAGS")
    if not value:
        return
    try:
        parse_flags(*shlex.split(value))
    except Exception as e:
        raise RuntimeError(
            f"Bad flag value in environment variable IREE_PY_RUNTIME_FLAGS='{value}': {e}"
        ) from e


_load_default_flags_from_env()
