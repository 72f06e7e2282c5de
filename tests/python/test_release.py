"""Deterministic release and out-of-memory behaviour (gree issue 25, items 2
and 4): closing or dropping a device, module or context frees its OS
resources at once (worker threads, llvm-cpu memory files and shared
objects, mapped buffers), never at a garbage collection; uses after a close
are errors naming the object; allocations the machine cannot satisfy are
RESOURCE_EXHAUSTED errors and the process lives on."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as rt

MUL = """func.func @f(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %r = arith.mulf %a, %b : tensor<4xf32>
  return %r : tensor<4xf32>
}
"""

DYNAMIC = """func.func @fill(%n: index) -> tensor<?xf32> {
  %c = arith.constant 1.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.fill ins(%c : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  return %r : tensor<?xf32>
}
func.func @neg(%x: tensor<?xf32>) -> tensor<?xf32> {
  %r = arith.negf %x : tensor<?xf32>
  return %r : tensor<?xf32>
}
"""


def _run_python(code, env=None, timeout=600):
    """Runs code in a fresh interpreter; returns the CompletedProcess."""
    full_env = dict(os.environ)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          errors="replace", timeout=timeout, env=full_env)


def _available_bytes():
    """MemAvailable plus SwapFree, or None where /proc/meminfo is missing."""
    try:
        fields = dict(line.split(":", 1) for line in open("/proc/meminfo"))
    except OSError:
        return None
    kb = lambda k: int(fields.get(k, "0 kB").split()[0])  # noqa: E731
    return (kb("MemAvailable") + kb("SwapFree")) * 1024


def test_closed_objects_name_themselves():
    vmfb = ireec.compile_str(MUL, target_backends=["llvm-cpu"])
    with rt.get_driver("local-task").create_default_device() as dev:
        inst = rt.VmInstance()
        with rt.VmModule.copy_buffer(inst, vmfb) as m:
            with rt.VmContext(inst, [rt.create_hal_module(inst, dev), m]) as ctx:
                f = rt.FunctionInvoker(ctx, dev, m.lookup_function("f"))
                a = np.arange(4, dtype=np.float32)
                r = f(a, a)
            # The context is closed; its result is not.
            np.testing.assert_array_equal(r.to_host(), a * a)
            with pytest.raises(RuntimeError, match="VmContext is closed") as e:
                f(a, a)
            assert e.value.code == 9  # FAILED_PRECONDITION
        with pytest.raises(RuntimeError, match="VmModule 'module' is closed"):
            rt.VmContext(inst, [m])
    assert dev.closed
    with pytest.raises(RuntimeError, match="HalDevice 'local-task' is closed"):
        dev.create_semaphore(0)
    with pytest.raises(RuntimeError, match="HalDevice 'local-task' is closed"):
        rt.VmContext(rt.VmInstance(), [rt.create_hal_module(rt.VmInstance(), dev)])
    dev.close()  # twice: nothing


def test_closing_a_cached_device_gives_a_fresh_one():
    d = rt.get_device("local-sync")
    d.close()
    d2 = rt.get_device("local-sync")
    assert d2 is not d and not d2.closed
    assert d2.create_semaphore(3).query() == 3


def test_closing_the_device_under_a_context_fails_its_calls_cleanly():
    vmfb = ireec.compile_str(MUL, target_backends=["llvm-cpu"])
    dev = rt.get_driver("local-task").create_default_device()
    inst = rt.VmInstance()
    m = rt.VmModule.copy_buffer(inst, vmfb)
    ctx = rt.VmContext(inst, [rt.create_hal_module(inst, dev), m])
    f = rt.FunctionInvoker(ctx, dev, m.lookup_function("f"))
    a = np.ones(4, np.float32)
    dev.close()
    with pytest.raises(RuntimeError, match="closed"):
        f(a, a).to_host()
    ctx.close()


CYCLES = """
import os, resource, sys
import numpy as np
import iree_go.compiler as ireec
import iree_go.runtime as rt

resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
vmfb = ireec.compile_str(sys.argv[1] if len(sys.argv) > 1 else {src!r}, target_backends=["llvm-cpu"])
drv = rt.get_driver("local-task")
a = np.arange(4, dtype=np.float32)

def fds():
    return len(os.listdir("/proc/self/fd"))

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024

def cycle(i):
    inst = rt.VmInstance()
    if i % 2:
        # Explicit: with blocks close device, module and context.
        with drv.create_default_device() as dev, rt.VmModule.copy_buffer(inst, vmfb) as m, \\
                rt.VmContext(inst, [rt.create_hal_module(inst, dev), m]) as ctx:
            r = rt.FunctionInvoker(ctx, dev, m.lookup_function("f"))(a, a)
            assert r.to_host()[3] == 9
    else:
        # Implicit: dropping the last reference releases everything.
        dev = drv.create_default_device()
        m = rt.VmModule.copy_buffer(inst, vmfb)
        ctx = rt.VmContext(inst, [rt.create_hal_module(inst, dev), m])
        r = rt.FunctionInvoker(ctx, dev, m.lookup_function("f"))(a, a)
        assert r.to_host()[3] == 9

n = {n}
for i in range(100):
    cycle(i)
fd0, rss0, threads0 = fds(), rss(), len(os.listdir("/proc/self/task"))
peak = fd0
for i in range(100, n):
    cycle(i)
    if i % 97 == 0:
        peak = max(peak, fds())
print(fd0, peak, fds(), rss0, rss(), threads0, len(os.listdir("/proc/self/task")))
"""


def test_create_use_release_cycles_keep_files_and_memory_flat():
    """10,000 device+module+context+call cycles under a 256-descriptor limit:
    open files stay flat (each cycle's llvm-cpu memory file is closed with its
    context), RSS grows by less than 5 MiB and threads do not pile up."""
    r = _run_python(CYCLES.format(src=MUL, n=10000))
    assert r.returncode == 0, r.stderr[-3000:]
    fd0, peak, fd1, rss0, rss1, t0, t1 = map(int, r.stdout.split())
    assert peak <= fd0 + 2 and fd1 <= fd0 + 2, r.stdout
    assert rss1 - rss0 < 5 << 20, f"RSS grew by {(rss1 - rss0) / 2**20:.1f} MiB over the cycles"
    assert t1 <= t0 + 4, f"threads: {t0} after 100 cycles, {t1} after 10,000"


OOM = """
import numpy as np
import iree_go.compiler as ireec
import iree_go.runtime as rt

vmfb = ireec.compile_str({src!r}, target_backends=["llvm-cpu"])
m = rt.load_vm_flatbuffer(vmfb, driver="local-task")
for n in {sizes!r}:
    try:
        m.fill(n)
        print("no error for", n)
    except RuntimeError as e:
        print(e.code, str(e).replace("\\n", " "))
np.testing.assert_array_equal(m.fill(7).to_host(), np.ones(7, np.float32))
np.testing.assert_array_equal(m.neg(np.ones(3, np.float32)).to_host(), -np.ones(3, np.float32))
print("alive")
"""


def test_allocations_the_machine_cannot_hold_are_resource_exhausted():
    """A result of 2^40 elements (and one larger than the machine's memory)
    is a RESOURCE_EXHAUSTED error naming its size; the next calls work."""
    sizes = [1 << 40]
    avail = _available_bytes()
    if avail is not None and avail < (1 << 36) * 4:
        sizes.append(1 << 36)  # 256 GiB of f32: over what this machine has
    r = _run_python(OOM.format(src=DYNAMIC, sizes=sizes), timeout=300)
    assert r.returncode == 0, f"rc {r.returncode}: {r.stderr[-3000:]}"
    assert "fatal error" not in r.stderr
    lines = r.stdout.splitlines()
    assert lines[-1] == "alive"
    for n, line in zip(sizes, lines):
        assert line.startswith("8 ") and "RESOURCE_EXHAUSTED" in line, line
        assert f"{n}xf32" in line or str(4 * n) in line, line


def test_memory_limit_env_bounds_allocations():
    r = _run_python(OOM.format(src=DYNAMIC, sizes=[1 << 25]), env={"GREE_MEMORY_LIMIT": "64M"}, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    first = r.stdout.splitlines()[0]
    assert first.startswith("8 ") and "GREE_MEMORY_LIMIT" in first and str(4 << 25) in first, first


def test_run_module_refuses_a_huge_input_cleanly(bin_dir, tmp_path):
    src = tmp_path / "neg.mlir"
    src.write_text(DYNAMIC)
    vmfb = tmp_path / "neg.vmfb"
    r = subprocess.run([os.path.join(bin_dir, "iree-compile"), "--iree-hal-target-backends=llvm-cpu", str(src),
                        "-o", str(vmfb)], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    inputs = ["1099511627776xf32=0"]
    avail = _available_bytes()
    if avail is not None and avail < (1 << 36) * 4:
        inputs.append("68719476736xf32=0")
    for spec in inputs:
        r = subprocess.run([os.path.join(bin_dir, "iree-run-module"), f"--module={vmfb}", "--function=neg",
                            f"--input={spec}"], capture_output=True, text=True, timeout=120)
        # 1: a status error (Go's fatal errors exit with 2, signals are < 0).
        assert r.returncode == 1, (r.returncode, r.stderr)
        assert "RESOURCE_EXHAUSTED" in r.stderr and "fatal error" not in r.stderr, r.stderr


def test_c_release_cycles(tmp_path):
    """The C example creates, uses and releases device, module and context
    10,000 times under a 256-descriptor limit and checks descriptors, threads
    and RSS stay flat."""
    import pathlib
    import resource

    from conftest import build_c_example

    exe = build_c_example("release_cycles", tmp_path)
    sample = pathlib.Path(__file__).resolve().parents[2] / "samples" / "simple_mul.mlir"
    vmfb = tmp_path / "mul.vmfb"
    vmfb.write_bytes(ireec.compile_str(sample.read_text(), target_backends=["llvm-cpu"]))

    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))

    r = subprocess.run([exe, str(vmfb), "arithmetic", "simple_mul", "10000"], capture_output=True, text=True,
                       timeout=300, preexec_fn=limit)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.startswith("fds "), r.stdout


BROADCAST = """func.func @bcast(%x: tensor<?xf32>, %n: i64) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?xf32>
  %rows = arith.index_cast %n : i64 to index
  %e = tensor.empty(%rows, %d) : tensor<?x?xf32>
  %r = linalg.broadcast ins(%x : tensor<?xf32>) outs(%e : tensor<?x?xf32>) dimensions = [0]
  return %r : tensor<?x?xf32>
}
"""


@pytest.mark.parametrize("backend", ["llvm-cpu", "vmvx"])
@pytest.mark.parametrize("driver", ["local-sync", "local-task"])
def test_dynamic_dimension_of_2_pow_40_elements_is_resource_exhausted(backend, driver):
    """A tensor<?xf32> broadcast to a row count passed as an i64: 2^38 rows
    of 4 are 2^40 elements (4 TiB), RESOURCE_EXHAUSTED; so is a count whose
    byte size overflows int64; a negative one is INVALID_ARGUMENT; and the
    next call in the same process works, on both CPU targets and drivers."""
    if backend not in ireec.query_available_targets():
        pytest.skip(f"{backend} is not available")
    m = rt.load_vm_flatbuffer(ireec.compile_str(BROADCAST, target_backends=[backend]), driver=driver)
    x = np.array([1.5, -2.0, 3.25, 4.0], np.float32)
    for rows in (1 << 38, 1 << 62, (1 << 63) - 1):
        with pytest.raises(RuntimeError) as e:
            m.bcast(x, rows)
        assert e.value.code == 8 and "RESOURCE_EXHAUSTED" in str(e.value), str(e.value)
        assert f"{rows}x4xf32" in str(e.value), str(e.value)
        r = m.bcast(x, 3).to_host()
        np.testing.assert_array_equal(r, np.broadcast_to(x, (3, 4)))
    with pytest.raises(ValueError, match="negative") as e:
        m.bcast(x, -1)
    assert e.value.code == 3
    np.testing.assert_array_equal(m.bcast(x[:2], 2).to_host(), np.broadcast_to(x[:2], (2, 2)))
