"""Cancellation, deadlines and Ctrl-C of calls from Python: an endless call
stops within 100 ms of SIGINT (KeyboardInterrupt), of a CancelToken's
cancel() or of its deadline, and the context keeps working."""

import signal
import subprocess
import sys
import textwrap
import threading
import time

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

CANCELLED, DEADLINE_EXCEEDED = 1, 4

# spin(stop) counts i = 0, 1, … while i != stop: spin(-1) never returns (a
# host loop); grow(x, -1) squares x forever (a dispatch per iteration).
PROGRAM = """
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
func.func @grow(%x: tensor<4xf32>, %stop: i64) -> tensor<4xf32> {
  %c0 = arith.constant 0 : i64
  %c1 = arith.constant 1 : i64
  %r:2 = scf.while (%i = %c0, %t = %x) : (i64, tensor<4xf32>) -> (i64, tensor<4xf32>) {
    %go = arith.cmpi ne, %i, %stop : i64
    scf.condition(%go) %i, %t : i64, tensor<4xf32>
  } do {
  ^bb0(%i: i64, %t: tensor<4xf32>):
    %n = arith.addi %i, %c1 : i64
    %u = arith.mulf %t, %t : tensor<4xf32>
    scf.yield %n, %u : i64, tensor<4xf32>
  }
  return %r#1 : tensor<4xf32>
}
func.func @add(%a: i64, %b: i64) -> i64 {
  %s = arith.addi %a, %b : i64
  return %s : i64
}
"""

X = np.array([1.0, -1.0, 0.5, 1.5], np.float32)


@pytest.fixture(scope="module")
def vmfb():
    return ireec.compile_str(PROGRAM, target_backends=["vmvx"])


@pytest.fixture(scope="module")
def mod(vmfb):
    return ireert.load_vm_flatbuffer(vmfb, driver="local-task")


def endless_calls(mod):
    return [("host loop", lambda: mod.spin(-1)), ("dispatch loop", lambda: mod.grow(X, -1))]


def check_usable(mod):
    assert mod.add(2, 3) == 5
    assert mod.spin(1000) == 1000
    np.testing.assert_allclose(mod.grow(X, 2).to_host(), X ** 4)


def after(seconds, fn):
    """Runs fn on a thread after seconds; returns the thread and a list that
    receives the time fn ran at."""
    at = []

    def run():
        time.sleep(seconds)
        at.append(time.perf_counter())
        fn()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, at


@pytest.mark.parametrize("which", [0, 1], ids=["host loop", "dispatch loop"])
def test_sigint_raises_keyboard_interrupt_in_an_endless_call(mod, which):
    name, call = endless_calls(mod)[which]
    main = threading.main_thread().ident
    assert threading.get_ident() == main, "the test must run on the main thread"
    t, at = after(0.05, lambda: signal.pthread_kill(main, signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        try:
            call()
        finally:
            stopped = time.perf_counter()
    t.join()
    latency = stopped - at[0]
    print(f"{name}: KeyboardInterrupt {latency * 1e3:.2f} ms after SIGINT")
    assert latency < 0.1, f"{name}: KeyboardInterrupt came {latency * 1e3:.1f} ms after SIGINT"
    check_usable(mod)


@pytest.mark.parametrize("which", [0, 1], ids=["host loop", "dispatch loop"])
def test_cancel_token_from_another_thread(mod, which):
    name, call = endless_calls(mod)[which]
    tok = ireert.CancelToken()
    t, at = after(0.05, tok.cancel)
    with pytest.raises(RuntimeError) as e:
        try:
            with ireert.deadline(cancel_token=tok):
                call()
        finally:
            stopped = time.perf_counter()
    t.join()
    assert e.value.code == CANCELLED and "cancelled" in str(e.value), e.value
    latency = stopped - at[0]
    print(f"{name}: cancelled {latency * 1e3:.2f} ms after cancel()")
    assert latency < 0.1
    assert tok.cancelled
    # Sticky: the token stops later calls at once; a fresh one does not.
    with pytest.raises(RuntimeError) as e:
        with ireert.deadline(cancel_token=tok):
            mod.add(1, 2)
    assert e.value.code == CANCELLED
    with ireert.deadline(cancel_token=ireert.CancelToken()):
        check_usable(mod)


def test_deadline_and_timeout(mod):
    for name, call in endless_calls(mod):
        start = time.perf_counter()
        with pytest.raises(RuntimeError) as e:
            with ireert.deadline(0.05):
                call()
        took = time.perf_counter() - start
        assert e.value.code == DEADLINE_EXCEEDED and "deadline" in str(e.value), e.value
        assert 0.05 <= took < 0.15, f"{name}: a 50 ms deadline stopped the call after {took * 1e3:.1f} ms"
    # Nested blocks keep the earliest deadline.
    start = time.perf_counter()
    with pytest.raises(RuntimeError):
        with ireert.deadline(0.05), ireert.deadline(10):
            mod.spin(-1)
    assert time.perf_counter() - start < 0.15
    with ireert.deadline(10):
        check_usable(mod)


def test_vm_context_invoke_timeout_and_token(vmfb):
    inst = ireert.VmInstance()
    dev = ireert.get_device("local-task")
    m = ireert.VmModule.copy_buffer(inst, vmfb)
    ctx = ireert.VmContext(inst, modules=[ireert.create_hal_module(inst, dev), m])
    spin = m.lookup_function("spin")
    args = ireert.VmVariantList(1)
    args.push_int(-1)
    start = time.perf_counter()
    with pytest.raises(RuntimeError) as e:
        ctx.invoke(spin, args, ireert.VmVariantList(1), timeout=0.03)
    assert e.value.code == DEADLINE_EXCEEDED and "call to module.spin passed its deadline" in str(e.value)
    assert time.perf_counter() - start < 0.13
    tok = ireert.CancelToken()
    tok.cancel()
    with pytest.raises(RuntimeError) as e:
        ctx.invoke(spin, args, ireert.VmVariantList(1), cancel_token=tok)
    assert e.value.code == CANCELLED and "call to module.spin cancelled" in str(e.value)
    with pytest.raises(TypeError):
        ctx.invoke(spin, args, ireert.VmVariantList(1), cancel_token="no")
    with pytest.raises(ValueError):
        ctx.invoke(spin, args, ireert.VmVariantList(1), timeout=-1)
    args = ireert.VmVariantList(1)
    args.push_int(7)
    out = ireert.VmVariantList(1)
    ctx.invoke(spin, args, out, timeout=10)
    assert out.get_variant(0) == 7


def test_calls_from_other_threads_ignore_sigint(mod):
    """Only the main thread's calls are interrupted: another thread's call
    runs on (then stops on its own deadline)."""
    errors = []

    def worker():
        try:
            with ireert.deadline(0.3):
                mod.spin(-1)
        except RuntimeError as e:
            errors.append(e)

    w = threading.Thread(target=worker)
    w.start()
    time.sleep(0.05)
    with pytest.raises(KeyboardInterrupt):
        signal.pthread_kill(threading.main_thread().ident, signal.SIGINT)
        time.sleep(1)  # the handler raises here
    w.join()
    assert len(errors) == 1 and errors[0].code == DEADLINE_EXCEEDED, errors


CHAINED = textwrap.dedent("""
    import signal, socket, threading, time, sys
    import iree_go.compiler as ireec, iree_go.runtime as ireert
    # A wakeup fd set before gree's (as asyncio sets one) keeps getting
    # every signal byte.
    a, b = socket.socketpair()
    a.setblocking(False)
    signal.set_wakeup_fd(a.fileno())
    mod = ireert.load_vm_flatbuffer(open(sys.argv[1], "rb").read(), driver="local-task")
    main = threading.main_thread().ident
    at = []
    def kill():
        at.append(time.perf_counter())
        signal.pthread_kill(main, signal.SIGINT)
    threading.Timer(0.05, kill).start()
    try:
        mod.spin(-1)
        print("not interrupted")
    except KeyboardInterrupt:
        took = time.perf_counter() - at[0]
        b.settimeout(5)
        got = b.recv(16)
        print("interrupted", round(took, 4), list(got), mod.add(1, 2))
""")


def test_existing_wakeup_fd_is_chained(vmfb, tmp_path):
    p = tmp_path / "spin.vmfb"
    p.write_bytes(vmfb)
    r = subprocess.run([sys.executable, "-c", CHAINED, str(p)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    words = r.stdout.split()
    assert words[0] == "interrupted", r.stdout + r.stderr
    assert float(words[1]) < 0.1, f"KeyboardInterrupt {words[1]} s after SIGINT"
    assert "[2]" in r.stdout, f"the chained wakeup fd did not get SIGINT: {r.stdout}"
    assert words[-1] == "3", r.stdout


def test_long_dispatch_loop_stops_promptly(mod):
    # A loop of dispatches that never reads a value back runs its work in
    # batches as it goes: after half a second of it, a cancel waits for at
    # most two batches, not for everything the loop recorded.
    tok = ireert.CancelToken()
    t, at = after(0.5, tok.cancel)
    with pytest.raises(RuntimeError) as e:
        try:
            with ireert.deadline(cancel_token=tok):
                mod.grow(X, -1)
        finally:
            stopped = time.perf_counter()
    t.join()
    assert e.value.code == CANCELLED
    latency = stopped - at[0]
    print(f"dispatch loop: cancelled {latency * 1e3:.2f} ms after cancel() at 0.5 s")
    assert latency < 0.1
    check_usable(mod)
