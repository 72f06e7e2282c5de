"""Sub-byte element types through iree_go.runtime and iree-run-module:
ml_dtypes int4, uint4, int2, uint2 and float4_e2m1fn arrays passed to and
returned from compiled functions, checked against numpy in int64/float64.

gree stores sub-byte elements one per byte (as ml_dtypes arrays do; IREE
packs them): integers sign-extended from their width, f4E2M1FN codes in the
low four bits. Arguments are made canonical on the way in and results come
back with the bytes ml_dtypes makes.

The CLI tests use the tools in $GREE_TEST_TOOLS_DIR when it is set (a
development build), else the installed console scripts.
"""

import os
import subprocess
import sys

import numpy as np
import pytest

ml_dtypes = pytest.importorskip("ml_dtypes")

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402
from iree_go.runtime import dtypes  # noqa: E402

ET = ireert.HalElementType


def _map(name, src, dst, body, dyn=True):
    """A func.func @name mapping tensor<?xsrc> (or several) elementwise to
    the results dst, each computed by body (lines using %x0, %x1… and
    yielding %r0, %r1…)."""
    srcs = src if isinstance(src, list) else [src]
    dsts = dst if isinstance(dst, list) else [dst]
    t = lambda e: f"tensor<?x{e}>"  # noqa: E731
    args = ", ".join(f"%a{i}: {t(e)}" for i, e in enumerate(srcs))
    outs = ", ".join(t(e) for e in dsts)
    empties = "\n".join(f"  %e{i} = tensor.empty(%n) : {t(e)}" for i, e in enumerate(dsts))
    maps = ", ".join(["affine_map<(d0) -> (d0)>"] * (len(srcs) + len(dsts)))
    bb = ", ".join([f"%x{i}: {e}" for i, e in enumerate(srcs)] + [f"%o{i}: {e}" for i, e in enumerate(dsts)])
    ys = ", ".join(f"%r{i}" for i in range(len(dsts)))
    return f"""
func.func @{name}({args}) -> ({outs}) {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a0, %c0 : {t(srcs[0])}
{empties}
  %r:{len(dsts)} = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel"]}}
      ins({", ".join(f"%a{i}" for i in range(len(srcs)))} : {", ".join(t(e) for e in srcs)})
      outs({", ".join(f"%e{i}" for i in range(len(dsts)))} : {outs}) {{
  ^bb0({bb}):
{body}
    linalg.yield {ys} : {", ".join(dsts)}
  }} -> ({outs})
  return {", ".join(f"%r#{i}" for i in range(len(dsts)))} : {outs}
}}"""


def _int_ops(bits):
    e = f"i{bits}"
    return _map(f"{e}_ops", [e, e], [e, "f32", "f32"], f"""
    %r0 = arith.addi %x0, %x1 : {e}
    %r1 = arith.sitofp %x0 : {e} to f32
    %r2 = arith.uitofp %x0 : {e} to f32""")


PROGRAM = "\n".join([
    _int_ops(4),
    _int_ops(2),
    # Results computed in the kernel, not copies of an argument.
    _map("f32_to_i4", "f32", "i4", "    %r0 = arith.fptosi %x0 : f32 to i4"),
    _map("f32_to_i2", "f32", "i2", "    %r0 = arith.fptosi %x0 : f32 to i2"),
    _map("f4_ops", "f4E2M1FN", ["f32", "f4E2M1FN"], """
    %r0 = arith.extf %x0 : f4E2M1FN to f32
    %sq = arith.mulf %r0, %r0 : f32
    %r1 = arith.truncf %sq : f32 to f4E2M1FN"""),
    _map("i8_to_i3", "i8", "i3", "    %r0 = arith.trunci %x0 : i8 to i3"),
])

BACKENDS = ["vmvx", "llvm-cpu"]


@pytest.fixture(scope="module", params=BACKENDS)
def module(request):
    vmfb = ireec.compile_str(PROGRAM, target_backends=[request.param])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    return ctx.modules.module


def _wrap(v, bits):
    """v (int64) wrapped into the signed range of a bits-wide integer."""
    half = 1 << (bits - 1)
    return (v + half) % (1 << bits) - half


def _values(dtype, n, rng):
    info = ml_dtypes.iinfo(dtype)
    return rng.integers(int(info.min), int(info.max) + 1, n).astype(dtype)


def test_dtype_mapping():
    cases = [(ml_dtypes.int4, ET.SINT_4), (ml_dtypes.uint4, ET.UINT_4), (ml_dtypes.int2, ET.SINT_2),
             (ml_dtypes.uint2, ET.UINT_2), (ml_dtypes.float4_e2m1fn, ET.FLOAT_4_E2M1_FN)]
    for dt, et in cases:
        assert dtypes.map_dtype_to_hal_element_type(dt) == et
        assert ET.map_to_dtype(et) == np.dtype(dt)
        assert not ET.is_byte_aligned(et) and ET.dense_byte_count(et) == 1
    # Signless words (what gree's functions return) read as signed.
    assert ET.map_to_dtype(ET.INT_4) == np.dtype(ml_dtypes.int4)
    assert ET.map_to_dtype(ET.INT_2) == np.dtype(ml_dtypes.int2)
    assert int(ET.FLOAT_4_E2M1_FN) == 0x29000004
    # As in IREE, the ml_dtypes types are not in the DTypeInfo tables.
    with pytest.raises(KeyError):
        dtypes.map_dtype_to_dtype_info(ml_dtypes.int4)


@pytest.mark.parametrize("bits, n", [(4, 5), (4, 17), (2, 7), (2, 1)])
def test_int_arguments_and_results(module, bits, n):
    rng = np.random.default_rng(bits * 100 + n)
    dt = getattr(ml_dtypes, f"int{bits}")
    a, b = _values(dt, n, rng), _values(dt, n, rng)
    s, sf, uf = module[f"i{bits}_ops"](a, b)
    a64, b64 = a.astype(np.int64), b.astype(np.int64)
    got = s.to_host()
    assert got.dtype == dt and got.shape == (n,)
    np.testing.assert_array_equal(got.astype(np.int64), _wrap(a64 + b64, bits))
    # The bytes ml_dtypes itself makes for these values.
    assert got.tobytes() == _wrap(a64 + b64, bits).astype(dt).tobytes()
    np.testing.assert_array_equal(sf.to_host(), a64.astype(np.float32))
    np.testing.assert_array_equal(uf.to_host(), (a64 & ((1 << bits) - 1)).astype(np.float32))


@pytest.mark.parametrize("bits, n", [(4, 5), (2, 3)])
def test_unsigned_arguments(module, bits, n):
    # uint4 arrays for a signless i4 argument: uitofp sees their values,
    # sitofp the same bits read as signed.
    rng = np.random.default_rng(bits)
    dt = getattr(ml_dtypes, f"uint{bits}")
    a = _values(dt, n, rng)
    a[0] = (1 << bits) - 1  # the high bit set
    zero = np.zeros(n, getattr(ml_dtypes, f"int{bits}"))
    s, sf, uf = module[f"i{bits}_ops"](a, zero)
    a64 = a.astype(np.int64)
    np.testing.assert_array_equal(uf.to_host(), a64.astype(np.float32))
    np.testing.assert_array_equal(sf.to_host(), _wrap(a64, bits).astype(np.float32))
    # A signless result is int4; dtypes.astype reads its bits as uint4.
    np.testing.assert_array_equal(dtypes.astype(s.to_host(), dt).astype(np.int64), a64)


@pytest.mark.parametrize("bits", [4, 2])
def test_computed_results(module, bits):
    x = np.array([-2.7, -1.0, 0.0, 1.9, 1.2], np.float32)[: 5 if bits == 4 else 3]
    got = module[f"f32_to_i{bits}"](x).to_host()
    want = np.trunc(x.astype(np.float64)).astype(np.int64)
    assert got.dtype == getattr(ml_dtypes, f"int{bits}")
    np.testing.assert_array_equal(got.astype(np.int64), want)


@pytest.mark.parametrize("n", [16, 5, 1])
def test_f4_arguments_and_results(module, n):
    codes = np.arange(16, dtype=np.uint8)[:n] if n == 16 else np.array([1, 9, 6, 15, 3], np.uint8)[:n]
    x = codes.view(ml_dtypes.float4_e2m1fn)
    f, g = module.f4_ops(x)
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(f.to_host(), x64.astype(np.float32))
    # truncf rounds to nearest even and saturates, as ml_dtypes' cast does.
    want = (x64 * x64).astype(ml_dtypes.float4_e2m1fn)
    got = g.to_host()
    assert got.dtype == ml_dtypes.float4_e2m1fn
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    assert (got.view(np.uint8) < 16).all()


def test_device_arrays_and_buffer_views(module):
    device = ireert.get_device("local-task")
    a = np.array([1, -2, 3, -8, 7], ml_dtypes.int4)
    d = ireert.asdevicearray(device, a)
    assert d.dtype == ml_dtypes.int4 and d._buffer_view.element_type == ET.SINT_4
    assert d.to_host().tobytes() == a.tobytes()
    scalar = ireert.asdevicearray(device, np.array(-3, ml_dtypes.int4))
    assert scalar.to_host().shape == () and int(scalar.to_host()) == -3
    assert scalar._buffer_view.to_numpy(np.int8).tolist() == -3
    # The queue-copy path, taken on devices whose memory the host cannot map.
    unmapped = ireert.asdevicearray(device, a)
    unmapped._is_mappable = lambda: False
    assert unmapped.to_host().tobytes() == a.tobytes() and unmapped.to_host().dtype == ml_dtypes.int4
    # A result passed back in, and read through HalBufferView.to_numpy.
    s = module.i4_ops(d, d)[0]
    twice = module.i4_ops(s, d)[0]
    np.testing.assert_array_equal(twice.to_host().astype(np.int64), _wrap(3 * a.astype(np.int64), 4))
    bv = twice._buffer_view
    assert bv.element_type == ET.INT_4 and bv.byte_length == 5
    assert bv.to_numpy().tobytes() == twice.to_host().tobytes()
    # The stored bytes are sign-extended (what gree's kernels read).
    assert bv.to_numpy(np.int8).tolist() == _wrap(3 * a.astype(np.int64), 4).tolist()
    # allocate_buffer_copy takes ml_dtypes arrays too (the buffer protocol
    # cannot describe them), keeping their shape.
    u = np.array([[15, 0, 9]], ml_dtypes.uint4)
    bv = device.allocator.allocate_buffer_copy(memory_type=ireert.MemoryType.DEVICE_LOCAL,
                                               allowed_usage=ireert.BufferUsage.DEFAULT, device=device,
                                               buffer=u, element_type=ET.UINT_4)
    assert bv.shape == [1, 3] and bv.to_numpy(np.int8).tolist() == [[-1, 0, -7]]
    assert bv.to_numpy().tobytes() == u.tobytes() and bv.to_numpy().dtype == ml_dtypes.uint4


def test_clear_errors(module):
    with pytest.raises(ireert.ArgumentError, match=r"expected tensor<\?xi4>, got array of shape \(5,\) and dtype int8"):
        module.i4_ops(np.zeros(5, np.int8), np.zeros(5, ml_dtypes.int4))
    with pytest.raises(ireert.ArgumentError, match="float64"):
        module.i4_ops([1, 2], [0.5, 1])
    # i3 has no numpy dtype: the result is a DeviceArray whose host copy
    # names the type and how to read its bytes.
    r = module.i8_to_i3(np.array([1, 2, 3, -4, 7], np.int8))
    with pytest.raises(ValueError, match=r"No numpy dtype for element type 0x10000003 \(i3\).*to_numpy\(np.int8\)"):
        r.to_host()
    assert r._buffer_view.to_numpy(np.int8).tolist() == [1, 2, 3, -4, -1]
    # DLPack packs sub-byte types; gree's buffers hold one per byte.
    s = module.i4_ops(np.ones(3, ml_dtypes.int4), np.ones(3, ml_dtypes.int4))[0]
    with pytest.raises(Exception, match="one per byte"):
        s.__dlpack__()


def test_legacy_abi_descriptors():
    # IREE's iree.abi reflection: an "i4" array argument is packed from a
    # Python list, and a "ui4" result comes back as uint4.
    import json

    from iree_go.runtime.function import FunctionInvoker

    class Fn:
        reflection = {"iree.abi": json.dumps({"a": [["ndarray", "i4", 1, 5]], "r": [["ndarray", "ui4", 1, 5]]})}

    class Echo:
        """A context object whose function returns its argument."""

        def invoke(self, vm_function, arg_list, ret_list):
            bv = arg_list.get_as_object(0, ireert.HalBufferView)
            assert bv.to_numpy(np.int8).tolist() == [1, -2, 7, -8, -1]  # canonical bytes
            ret_list.push_ref(bv)

    device = ireert.get_device("local-task")
    out = FunctionInvoker(Echo(), device, Fn())([1, -2, 7, -8, -1])
    host = out.to_host()
    assert host.dtype == ml_dtypes.uint4 and host.astype(np.int64).tolist() == [1, 14, 7, 8, 15]


# ---- iree-run-module ----------------------------------------------------------


def _tool(name):
    d = os.environ.get("GREE_TEST_TOOLS_DIR") or os.path.dirname(sys.executable)
    return os.path.join(d, name)


@pytest.fixture(scope="module")
def cli_vmfb(tmp_path_factory):
    path = tmp_path_factory.mktemp("subbyte") / "m.vmfb"
    path.write_bytes(ireec.compile_str(PROGRAM, target_backends=["vmvx"]))
    return path


def _run(*args):
    r = subprocess.run([_tool("iree-run-module"), *args], capture_output=True, text=True, timeout=120)
    return r.returncode, r.stdout + r.stderr


def test_run_module_text_inputs_and_printing(cli_vmfb):
    rc, out = _run(f"--module={cli_vmfb}", "--function=i4_ops", "--input=5xi4=1,2,-3,7,-8", "--input=5xi4=1 1 -1 1 15")
    assert rc == 0, out
    assert "5xi4=2 3 -4 -8 7" in out and "5xf32=1 2 -3 7 -8" in out and "5xf32=1 2 13 7 8" in out
    rc, out = _run(f"--module={cli_vmfb}", "--function=f4_ops", "--input=3xf4E2M1FN=0.5 -1.5 3")
    assert rc == 0, out
    assert "3xf32=0.5 -1.5 3" in out and "3xf4E2M1FN=0 2 6" in out
    rc, out = _run(f"--module={cli_vmfb}", "--function=i4_ops", "--input=5xi4=1 2 3 4 16", "--input=5xi4=0")
    assert rc != 0 and "invalid i4 element `16` (i4 holds integers from -8 to 15)" in out


def test_run_module_npy_files(cli_vmfb, tmp_path):
    # np.save writes ml_dtypes arrays with the void descr '<V1': the tool
    # gives them the argument's element type.
    a = np.array([1, -2, 3, -8, 7], ml_dtypes.int4)
    np.save(tmp_path / "a.npy", a)
    assert b"'descr': '<V1'" in (tmp_path / "a.npy").read_bytes()
    out_npy = tmp_path / "out.npy"
    rc, out = _run(f"--module={cli_vmfb}", "--function=i4_ops", f"--input=@{tmp_path / 'a.npy'}",
                   f"--input=@{tmp_path / 'a.npy'}", f"--output=@{out_npy}", "--output=", "--output=-")
    assert rc == 0, out
    assert "5xf32=1 14 3 8 7" in out  # uitofp of a
    # An i4 result is written as int8 holding the values.
    got = np.load(out_npy)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, _wrap(2 * a.astype(np.int64), 4))


# ---- ONNX node tests with sub-byte inputs or outputs ----------------------------

NODE_TESTS = ["test_cast_INT4_to_FLOAT", "test_cast_FLOAT_to_UINT4", "test_cast_UINT2_to_UINT8",
              "test_castlike_FLOAT16_to_INT2_expanded", "test_quantizelinear_int4", "test_dequantizelinear_uint2"]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("name", NODE_TESTS)
def test_onnx_node(name, backend):
    pytest.importorskip("onnx")
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "onnx"))
    import run_node_tests

    d = os.path.join(run_node_tests.node_test_root(), name)
    if not os.path.isdir(d):
        pytest.skip(f"{name} is not in this onnx package")
    cls, detail = run_node_tests.run_one(d, backend, "local-task")
    assert cls == "pass", detail
