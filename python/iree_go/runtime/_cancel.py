"""Cancellation, deadlines and Ctrl-C for calls (gree extensions; IREE's
signatures are unchanged).

- ``CancelToken``: ``token.cancel()`` from any thread stops the calls made
  with it (``VmContext.invoke(..., cancel_token=token)`` or
  ``with deadline(cancel_token=token)``) at their next loop back-edge,
  dispatch or call, with a RuntimeError whose ``code`` is CANCELLED.
- ``deadline(seconds)``: a context manager bounding every call the current
  thread makes inside it (FunctionInvoker calls included); a call still
  running at the deadline raises a RuntimeError whose ``code`` is
  DEADLINE_EXCEEDED. ``VmContext.invoke(..., timeout=seconds)`` bounds one
  call.
- Ctrl-C: calls made from the main thread stop when SIGINT arrives and the
  signal's handler runs as soon as the call returns (the default one raises
  KeyboardInterrupt). libgree learns of the signal from the wakeup fd that
  Python's C signal handler writes to even while the main thread is inside
  libgree (``signal.set_wakeup_fd``); a wakeup fd set before (asyncio's) is
  chained: it still receives every byte. A wakeup fd set after gree's
  replaces it (gree does not fight over it): Ctrl-C is then seen only when
  the running call returns.

Calls without a deadline or a token cost what they did: the options of a
main-thread call are one struct made once.
"""

import contextlib
import os
import signal
import threading
import time

from .._capi import check, ffi, lib


class CancelToken:
    """A token whose ``cancel()`` stops the calls made with it, now and
    later (cancelling is sticky: make a new token for new calls)."""

    def __init__(self):
        out = ffi.new("gree_cancel_token_t*")
        check(lib.gree_cancel_token_create(out), "creating a cancel token")
        self._handle = ffi.gc(out[0], lib.gree_cancel_token_release)
        self._cancelled = False

    @property
    def cancelled(self):
        """Whether cancel() was called."""
        return self._cancelled

    def cancel(self):
        """Stops every call made with this token (safe from any thread)."""
        self._cancelled = True
        check(lib.gree_cancel_token_cancel(self._handle), "cancelling a token")

    def __repr__(self):
        return f"<CancelToken {'cancelled' if self._cancelled else 'active'}>"


class _Local(threading.local):
    bound = None  # (deadline_ns or 0, CancelToken or None) inside deadline()


_local = _Local()


@contextlib.contextmanager
def deadline(seconds=None, *, cancel_token=None):
    """Bounds the calls this thread makes inside the ``with`` block: they
    stop with DEADLINE_EXCEEDED ``seconds`` after the block begins (None:
    no deadline) and with CANCELLED when ``cancel_token`` is cancelled.
    Nested blocks keep the earliest deadline; an inner token replaces an
    outer one."""
    if seconds is not None and seconds < 0:
        raise ValueError(f"deadline: seconds must be >= 0, got {seconds}")
    outer = _local.bound
    ns = time.monotonic_ns() + int(seconds * 1e9) if seconds is not None else 0
    token = cancel_token
    if outer is not None:
        if outer[0] and (not ns or outer[0] < ns):
            ns = outer[0]
        if token is None:
            token = outer[1]
    _local.bound = (ns, token)
    try:
        yield
    finally:
        _local.bound = outer


_MAIN_IDENT = threading.main_thread().ident
# What a main-thread call without other bounds passes: read-only for
# libgree, made once.
_MAIN_OPTIONS = ffi.new("gree_invoke_options_t*", {"flags": lib.GREE_INVOKE_INTERRUPTIBLE})
_wakeup_w = -1  # the write end gree installed as the wakeup fd; -1: none
_watch = None  # None: not tried yet; True: installed; False: not possible


def _install_watch():
    """Makes SIGINT reach libgree while the main thread is inside it: a pipe
    whose write end becomes Python's wakeup fd and whose read end libgree
    watches, forwarding every byte to the wakeup fd it replaced."""
    global _watch, _wakeup_w
    _watch = False
    try:
        r, w = os.pipe()
    except OSError:
        return
    os.set_blocking(w, False)
    try:
        old = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    except (ValueError, OSError):  # not the main interpreter, …
        os.close(r)
        os.close(w)
        return
    st = lib.gree_interrupt_watch_fd(r, old)  # libgree owns r from here
    if st != ffi.NULL:
        lib.gree_status_free(st)
        signal.set_wakeup_fd(old)
        os.close(w)
        return
    _wakeup_w, _watch = w, True


def _main_thread_watching():
    """Whether SIGINT reaches libgree (installing the watch on first use).
    A wakeup fd set after gree's replaces it without harm: calls then see
    Ctrl-C only when they return, so there is nothing to check per call."""
    if _watch is None:
        _install_watch()
    return _watch


def invoke_options(timeout=None, cancel_token=None):
    """The ``gree_invoke_options_t*`` for a call made now from this thread
    (ffi.NULL when it is unbounded)."""
    main = threading.get_ident() == _MAIN_IDENT
    bound = _local.bound
    if timeout is None and cancel_token is None and bound is None:
        if main and _main_thread_watching():
            return _MAIN_OPTIONS
        return ffi.NULL
    ns, token = bound if bound is not None else (0, None)
    if timeout is not None:
        if timeout < 0:
            raise ValueError(f"timeout must be >= 0 seconds, got {timeout}")
        t = time.monotonic_ns() + int(timeout * 1e9)
        ns = t if not ns or t < ns else ns
    if cancel_token is not None:
        token = cancel_token
    if token is not None and not isinstance(token, CancelToken):
        raise TypeError(f"cancel_token must be an iree_go.runtime.CancelToken, got {type(token).__name__}")
    flags = lib.GREE_INVOKE_INTERRUPTIBLE if main and _main_thread_watching() else 0
    return ffi.new("gree_invoke_options_t*", {
        "cancel_token": token._handle if token is not None else ffi.NULL,
        "deadline_ns": ns,
        "flags": flags,
    })
