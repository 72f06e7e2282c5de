"""Process-wide runtime flags (IREE's iree.runtime.flags)."""

import os
import shlex

from ._binding import parse_flags

FUNCTION_INPUT_VALIDATION = True

__all__ = ["parse_flags", "FUNCTION_INPUT_VALIDATION"]


def _parse_env_flags():
    value = os.environ.get("IREE_PY_RUNTIME_FLAGS")
    if not value:
        return
    try:
        parse_flags(*shlex.split(value))
    except Exception as e:
        raise RuntimeError(
            f"Bad flag value in environment variable IREE_PY_RUNTIME_FLAGS={value}"
        ) from e


_parse_env_flags()
