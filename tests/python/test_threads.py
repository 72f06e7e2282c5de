"""Calls from several Python threads on one shared context: results equal
one thread's, nothing fails, stateful modules stay consistent, failures of
the check module belong to their call, and the GIL is released during a
call (cffi ABI mode)."""

import threading
import time

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

THREADS = 8

PROGRAM = """
func.func @ew(%a: tensor<4096xf32>, %b: tensor<4096xf32>) -> tensor<4096xf32> {
  %m = arith.mulf %a, %b : tensor<4096xf32>
  %t = math.tanh %m : tensor<4096xf32>
  %s = arith.addf %t, %a : tensor<4096xf32>
  return %s : tensor<4096xf32>
}
func.func @mm(%a: tensor<32x32xf32>, %b: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x32xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<32x32xf32>) -> tensor<32x32xf32>
  %m = linalg.matmul ins(%a, %b : tensor<32x32xf32>, tensor<32x32xf32>) outs(%f : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %m : tensor<32x32xf32>
}
func.func @passthrough(%t: tensor<2x3xi32>) -> tensor<2x3xi32> {
  return %t : tensor<2x3xi32>
}
func.func @slow(%a: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1024x1024xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %m = linalg.matmul ins(%a, %a : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  %n = linalg.matmul ins(%m, %a : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%f : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %n : tensor<1024x1024xf32>
}
"""

STATEFUL = """
util.global private mutable @counter = dense<0.0> : tensor<f32>
func.func @bump() -> tensor<f32> {
  %v = util.global.load @counter : tensor<f32>
  %one = arith.constant dense<1.0> : tensor<f32>
  %n = arith.addf %v, %one : tensor<f32>
  util.global.store %n, @counter : tensor<f32>
  return %n : tensor<f32>
}
util.global private mutable @total = 0 : i64
func.func @accumulate(%x: i64) -> i64 {
  %v = util.global.load @total : i64
  %n = arith.addi %v, %x : i64
  util.global.store %n, @total : i64
  return %n : i64
}
func.func @read() -> i64 {
  %v = util.global.load @total : i64
  return %v : i64
}
"""

CHECKS = """
func.func @expect(%x: i32) {
  check.expect_true(%x) : i32
  return
}
"""

TARGETS = ["vmvx"] + (["llvm-cpu"] if "llvm-cpu" in ireec.query_available_targets() else [])


def run_threads(work, n=THREADS):
    """Runs work(i) on n threads started together; returns the exceptions."""
    errors = []
    start = threading.Barrier(n)

    def body(i):
        start.wait()
        try:
            work(i)
        except BaseException as e:  # noqa: BLE001 - reported by the caller
            errors.append(e)

    ts = [threading.Thread(target=body, args=(i,)) for i in range(n)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return errors


@pytest.fixture(scope="module", params=TARGETS)
def program(request):
    return ireec.compile_str(PROGRAM, target_backends=[request.param])


@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_threads_get_the_single_thread_results(program, driver):
    m = ireert.load_vm_flatbuffer(program, driver=driver)
    rng = np.random.default_rng(1)
    cases = []
    for _ in range(4):
        cases.append(("ew", [rng.standard_normal(4096).astype(np.float32) for _ in range(2)]))
        cases.append(("mm", [rng.standard_normal((32, 32)).astype(np.float32) for _ in range(2)]))
    want = [np.asarray(getattr(m, fn)(*args)).copy() for fn, args in cases]

    def work(i):
        for k in range(60):
            c = (i + k) % len(cases)
            fn, args = cases[c]
            got = np.asarray(getattr(m, fn)(*args))
            assert np.array_equal(got, want[c]), f"thread {i}: {fn} differs from the single-thread result"

    assert not run_threads(work)


def test_results_never_alias_another_threads_arguments(program):
    # A result in the memory of an argument is copied; which ranges are
    # arguments is per call, even when threads share the function.
    m = ireert.load_vm_flatbuffer(program, driver="local-task")

    def work(i):
        for k in range(200):
            arr = np.full((2, 3), i * 1000 + k, np.int32)
            r = m.passthrough(arr)
            arr[:] = -1
            assert (np.asarray(r) == i * 1000 + k).all(), f"thread {i}: a result aliases its argument"

    assert not run_threads(work)


def test_stateful_module_from_threads():
    m = ireert.load_vm_flatbuffer(ireec.compile_str(STATEFUL, target_backends=["vmvx"]), driver="local-task")
    calls = 100

    def work(i):
        for _ in range(calls):
            n = m.accumulate(1)
            assert 1 <= n <= THREADS * calls
            assert 0 <= m.read() <= THREADS * calls
            v = float(m.bump().to_host())
            assert 1 <= v <= THREADS * calls and v == int(v)

    assert not run_threads(work)
    # Calls that update a global are ordered: no update is lost.
    assert m.accumulate(0) == THREADS * calls
    assert float(m.bump().to_host()) == THREADS * calls + 1


def test_check_failures_belong_to_their_call():
    vmfb = ireec.compile_str(CHECKS, target_backends=["vmvx"])
    inst = ireert.VmInstance()
    device = ireert.get_device("local-task")
    mod = ireert.VmModule.copy_buffer(inst, vmfb)
    ctx = ireert.VmContext(inst, [ireert.create_hal_module(inst, device)])
    ctx._add_check_module()
    ctx.register_modules([mod])
    fn = mod.lookup_function("expect")

    def work(i):
        for k in range(100):
            args = ireert.VmVariantList(1)
            passing = (i + k) % 2 == 0
            args.push_int(1 if passing else 0)
            if passing:
                ctx.invoke(fn, args, ireert.VmVariantList(0))
            else:
                with pytest.raises(RuntimeError, match=r"FAILED_PRECONDITION; Expected 0 to be nonzero\.$") as e:
                    ctx.invoke(fn, args, ireert.VmVariantList(0))
                assert str(e.value).count("Expected") == 1, f"another call's failure in: {e.value}"


    assert not run_threads(work)


def test_the_gil_is_released_during_a_call(program):
    m = ireert.load_vm_flatbuffer(program, driver="local-sync")
    a = np.random.default_rng(2).standard_normal((1024, 1024)).astype(np.float32) / 32
    m.slow(a)
    t0 = time.perf_counter()
    m.slow(a)
    one = time.perf_counter() - t0
    if one < 0.03:
        pytest.skip(f"a call takes {one * 1e3:.1f} ms here, too short to watch")
    done = threading.Event()

    def call():
        m.slow(a)
        done.set()

    # The main thread keeps running while the other is inside the call:
    # the longest pause between two of its loop iterations is far shorter
    # than the call (with the GIL held it would be the whole call).
    t = threading.Thread(target=call)
    last = time.perf_counter()
    longest = 0.0
    t.start()
    while not done.is_set():
        now = time.perf_counter()
        longest = max(longest, now - last)
        last = now
    t.join()
    assert longest < 0.75 * one, f"the main thread stood still {longest * 1e3:.0f} ms during a {one * 1e3:.0f} ms call"
