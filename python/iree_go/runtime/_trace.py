"""A timeline of the devices' work, as Chrome trace-event JSON (gree's
``--trace_output``): every dispatch, transfer, fill, copy, queue allocation
and blocking wait, per device and queue, that ui.perfetto.dev and
chrome://tracing open.

Start it with ``trace_output(path)`` (a context manager), ``trace_begin`` /
``trace_end``, or the runtime flag: ``flags.parse_flags("--trace_output=run.json")``
(also through ``IREE_PY_RUNTIME_FLAGS``). A trace still being recorded
when the interpreter exits is written then."""

import atexit
import contextlib
import os

from .._capi import check, lib

__all__ = ["trace_active", "trace_begin", "trace_end", "trace_output"]


def trace_begin(path):
    """Starts recording; ``trace_end`` writes the trace to ``path`` (created
    now: an unwritable path raises at once). Raises if a trace is already
    being recorded."""
    check(lib.gree_trace_begin(os.fsencode(os.fspath(path))))


def trace_end():
    """Ends the trace in progress and writes its file (nothing when none)."""
    check(lib.gree_trace_end())


def trace_active():
    """True while a trace is being recorded."""
    return bool(lib.gree_trace_active())


@contextlib.contextmanager
def trace_output(path):
    """Records the devices' work inside the ``with`` block into ``path``,
    written when the block ends (also when it raises)::

        with iree_go.runtime.trace_output("run.json"):
            f(x)
    """
    trace_begin(path)
    try:
        yield path
    finally:
        trace_end()


def _write_at_exit():
    try:
        trace_end()
    except Exception as e:  # noqa: BLE001 - report, never raise at exit
        import sys

        print(f"iree_go.runtime: writing the trace failed: {e}", file=sys.stderr)


atexit.register(_write_at_exit)
