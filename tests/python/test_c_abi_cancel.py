"""The C ABI's cancel tokens, invoke options (token, deadline, interrupt)
and interrupt fd, called directly through cffi: an endless call stops
within 100 ms, misuse gives errors naming the cause, the context keeps
working."""

import os
import threading
import time

import pytest

import iree_go.compiler as ireec
from iree_go._capi import ffi, lib

OK, CANCELLED, INVALID_ARGUMENT, DEADLINE_EXCEEDED, FAILED_PRECONDITION = 0, 1, 3, 4, 9

PROGRAM = """
module @m {
  func.func @spin(%stop: i64) -> i64 {
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %r = scf.while (%i = %c0) : (i64) -> i64 {
      %go = arith.cmpi ne, %i, %stop : i64
      scf.condition(%go) %i : i64
    } do {
    ^bb0(%i: i64):
      %n = arith.addi %i, %c1 : i64
      scf.yield %n : i64
    }
    return %r : i64
  }
}
"""


def code(status):
    """The status's code, freeing it."""
    c = int(lib.gree_status_code(status))
    lib.gree_status_free(status)
    return c


def code_and_message(status):
    c = int(lib.gree_status_code(status))
    m = ffi.string(lib.gree_status_message(status)).decode()
    lib.gree_status_free(status)
    return c, m


@pytest.fixture(scope="module")
def ctx():
    drv = ffi.new("gree_driver_t*")
    assert code(lib.gree_driver_create(b"local-task", drv)) == OK
    dev = ffi.new("gree_device_t*")
    assert code(lib.gree_driver_create_default_device(drv[0], dev)) == OK
    lib.gree_driver_release(drv[0])
    data = ireec.compile_str(PROGRAM, target_backends=["vmvx"])
    mod = ffi.new("gree_module_t*")
    assert code(lib.gree_module_load(data, len(data), mod)) == OK
    c = ffi.new("gree_context_t*")
    assert code(lib.gree_context_create(dev[0], c)) == OK
    assert code(lib.gree_context_add_module(c[0], mod[0])) == OK
    yield c[0]
    lib.gree_context_release(c[0])
    lib.gree_module_release(mod[0])
    lib.gree_device_release(dev[0])


def spin(ctx, stop, options):
    """Invokes m.spin(stop) with options; returns (code, message, result)."""
    args = ffi.new("gree_value_list_t*")
    assert code(lib.gree_value_list_create(args)) == OK
    lib.gree_value_list_push_i64(args[0], stop)
    out = ffi.new("gree_value_list_t*")
    st = lib.gree_context_invoke_with_options(ctx, b"m", b"spin", args[0], options, out)
    lib.gree_value_list_release(args[0])
    if st != ffi.NULL:
        assert out[0] == ffi.NULL
        return code_and_message(st) + (None,)
    t, iv = ffi.new("gree_value_type_t*"), ffi.new("int64_t*")
    assert code(lib.gree_value_list_get(out[0], 0, t, iv, ffi.NULL, ffi.NULL, ffi.NULL)) == OK
    lib.gree_value_list_release(out[0])
    return OK, "", int(iv[0])


def new_token():
    out = ffi.new("gree_cancel_token_t*")
    assert code(lib.gree_cancel_token_create(out)) == OK
    return out[0]


def options(token=ffi.NULL, deadline_ns=0, flags=0):
    return ffi.new("gree_invoke_options_t*", {"cancel_token": token, "deadline_ns": deadline_ns, "flags": flags})


def stopped_after(ctx, opts, stop):
    """Runs the endless spin with opts, calls stop() on a thread 50 ms in;
    returns (code, message, seconds from stop() to the call's return)."""
    at = []

    def later():
        time.sleep(0.05)
        at.append(time.perf_counter())
        stop()

    t = threading.Thread(target=later)
    t.start()
    c, m, _ = spin(ctx, -1, opts)
    done = time.perf_counter()
    t.join()
    return c, m, done - at[0]


def test_token_cancels_a_running_call(ctx):
    tok = new_token()
    c, m, latency = stopped_after(ctx, options(tok), lambda: lib.gree_cancel_token_cancel(tok))
    assert (c, m) == (CANCELLED, "CANCELLED; call to m.spin cancelled")
    assert latency < 0.1, f"stopped {latency * 1e3:.1f} ms after the cancel"
    # Sticky; a second cancel is fine; other calls run.
    assert spin(ctx, 5, options(tok))[0] == CANCELLED
    assert code(lib.gree_cancel_token_cancel(tok)) == OK
    assert spin(ctx, 5, options())[2] == 5
    assert spin(ctx, 5, ffi.NULL)[2] == 5
    lib.gree_cancel_token_release(tok)


def test_deadline(ctx):
    start = time.perf_counter()
    c, m, _ = spin(ctx, -1, options(deadline_ns=lib.gree_time_now_ns() + 50_000_000))
    took = time.perf_counter() - start
    assert c == DEADLINE_EXCEEDED and "call to m.spin passed its deadline" in m, m
    assert 0.05 <= took < 0.15, f"a 50 ms deadline stopped the call after {took * 1e3:.1f} ms"
    assert abs(lib.gree_time_now_ns() - time.monotonic_ns()) < 10_000_000  # the same clock
    assert spin(ctx, -1, options(deadline_ns=lib.gree_time_now_ns() - 1))[0] == DEADLINE_EXCEEDED
    assert spin(ctx, 9, options(deadline_ns=lib.gree_time_now_ns() + 10**10))[2] == 9


def test_interrupt(ctx):
    # An interrupt raised before a call does not stop it; one raised while an
    # interruptible call runs does; calls without the flag ignore it.
    lib.gree_interrupt_raise()
    assert spin(ctx, 3, options(flags=lib.GREE_INVOKE_INTERRUPTIBLE))[2] == 3
    c, m, latency = stopped_after(ctx, options(flags=lib.GREE_INVOKE_INTERRUPTIBLE), lib.gree_interrupt_raise)
    assert c == CANCELLED and "interrupt" in m, m
    assert latency < 0.1
    c, m, _ = stopped_after(ctx, options(deadline_ns=lib.gree_time_now_ns() + 200_000_000), lib.gree_interrupt_raise)
    assert c == DEADLINE_EXCEEDED, m


def test_interrupt_fd(ctx):
    # A SIGINT byte on the watched fd raises the interrupt; every byte is
    # forwarded to the fd given; closing the writer ends the watch.
    r, w = os.pipe()
    fr, fw = os.pipe()
    os.set_blocking(fw, False)
    assert code(lib.gree_interrupt_watch_fd(r, fw)) == OK
    os.close(fw)  # libgree forwards to a duplicate of its own
    c, m, latency = stopped_after(ctx, options(flags=lib.GREE_INVOKE_INTERRUPTIBLE), lambda: os.write(w, bytes([17, 2])))
    assert c == CANCELLED and "interrupt" in m, m
    assert latency < 0.1
    assert os.read(fr, 16) == bytes([17, 2])
    os.close(w)
    os.close(fr)


def test_misuse_is_an_error(ctx):
    tok = new_token()
    lib.gree_cancel_token_release(tok)
    lib.gree_cancel_token_release(tok)  # a second release does nothing
    lib.gree_cancel_token_release(ffi.NULL)
    c, m = code_and_message(lib.gree_cancel_token_cancel(tok))
    assert c == FAILED_PRECONDITION and "cancel token" in m and "released" in m, m
    c, m = code_and_message(lib.gree_cancel_token_cancel(ffi.NULL))
    assert c == INVALID_ARGUMENT and "cancel token must not be NULL" in m, m
    c, m, _ = spin(ctx, 1, options(tok))
    assert c == FAILED_PRECONDITION and "options.cancel_token" in m, m
    c, m, _ = spin(ctx, 1, options(flags=1 << 5))
    assert c == INVALID_ARGUMENT and "unknown bits 0x20" in m, m
    assert code(lib.gree_cancel_token_create(ffi.NULL)) == INVALID_ARGUMENT
    out = ffi.new("gree_value_list_t*")
    assert code(lib.gree_context_invoke_with_options(ctx, b"m", b"spin", ffi.NULL, options(), ffi.NULL)) == INVALID_ARGUMENT
    assert code(lib.gree_context_invoke_with_options(ffi.NULL, b"m", b"spin", ffi.NULL, options(), out)) == INVALID_ARGUMENT
    assert code(lib.gree_interrupt_watch_fd(-1, -1)) == INVALID_ARGUMENT
    r, w = os.pipe()
    os.close(r)
    assert code(lib.gree_interrupt_watch_fd(r, -1)) == INVALID_ARGUMENT
    os.close(w)
    assert spin(ctx, 4, options())[2] == 4
