"""The parameter API of iree_go.runtime (IREE's iree.runtime io API):
FileHandle, ParameterIndex and its entries, providers, the io_parameters
module a context resolves #flow.parameter.named globals from, archives, the
numpy helpers of iree_go.runtime.io, and the errors of bad input."""

import array
import gc
import json
import os
import struct

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as rt
from iree_go.runtime import _hal

PROGRAM = """
util.global private @x = #flow.parameter.named<"s1"::"x"> : tensor<2x3xf32>
util.global private @n = #flow.parameter.named<"s1"::"n"> : tensor<4xi64>
util.global private @z = #flow.parameter.named<"s2"::"z"> : tensor<8xi16>
func.func @get() -> (tensor<2x3xf32>, tensor<4xi64>, tensor<8xi16>) {
  %x = util.global.load @x : tensor<2x3xf32>
  %n = util.global.load @n : tensor<4xi64>
  %z = util.global.load @z : tensor<8xi16>
  return %x, %n, %z : tensor<2x3xf32>, tensor<4xi64>, tensor<8xi16>
}
"""

X = np.arange(6, dtype=np.float32).reshape(2, 3) * 0.5 - 1.0
N = np.array([7, -8, 9, 1 << 40], dtype=np.int64)


@pytest.fixture(scope="module")
def vmfb():
    return ireec.compile_str(PROGRAM, target_backends=["vmvx"])


def run(vmfb, *providers):
    """get() of the program in a context with an io_parameters module over
    providers."""
    config = rt.Config("local-task")
    mod = rt.VmModule.copy_buffer(config.vm_instance, vmfb)
    io = rt.create_io_parameters_module(config.vm_instance, *providers)
    bound = rt.load_vm_modules(io, mod, config=config)
    return [r.to_host() for r in bound[-1].get()]


def safetensors_bytes(tensors):
    header, data = {}, b""
    for name, a in tensors.items():
        header[name] = {"dtype": {"float32": "F32", "int64": "I64"}[a.dtype.name], "shape": list(a.shape),
                        "data_offsets": [len(data), len(data) + a.nbytes]}
        data += a.tobytes()
    h = json.dumps(header).encode()
    return struct.pack("<Q", len(h)) + h + data


def gguf_bytes(tensors):
    """A GGUF v3 file of float32 tensors (dimensions innermost first)."""
    def s(t):
        return struct.pack("<Q", len(t)) + t.encode()
    out = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), 0)
    data, offs = b"", []
    for a in tensors.values():
        data += b"\0" * (-len(data) % 32)
        offs.append(len(data))
        data += a.tobytes()
    for (name, a), off in zip(tensors.items(), offs):
        out += s(name) + struct.pack("<I", a.ndim) + b"".join(struct.pack("<Q", d) for d in reversed(a.shape))
        out += struct.pack("<IQ", 0, off)
    return out + b"\0" * (-len(out) % 32) + data


# ---- FileHandle ----


def test_file_handle_wraps_memory():
    buf = bytearray(b"abcdef")
    fh = rt.FileHandle.wrap_memory(buf, writable=True)
    assert fh.is_host_allocation and not fh.is_fd
    view = fh.host_allocation
    assert not view.readonly and bytes(view) == b"abcdef"
    view[0] = ord("X")  # a writable handle's view is the memory itself
    assert buf[0] == ord("X")
    ro = rt.FileHandle.wrap_memory(b"foobar").host_allocation
    del fh
    gc.collect()
    assert ro.readonly and bytes(ro) == b"foobar" and bytes(view) == b"Xbcdef"
    assert repr(rt.FileHandle.wrap_memory(b"x")).startswith("FileHandle<host_allocation(<memory at")
    with pytest.raises(ValueError, match="not based on a file descriptor"):
        rt.FileHandle.wrap_memory(b"x").fd
    with pytest.raises(ValueError, match="C-contiguous"):
        rt.FileHandle.wrap_memory(np.zeros((4, 4))[:, 1])
    with pytest.raises(ValueError, match="read-only"):
        rt.FileHandle.wrap_memory(b"abc", writable=True)
    with pytest.raises(TypeError, match="wrap_memory"):
        rt.FileHandle()


def test_file_handle_wraps_a_duplicate_fd(tmp_path):
    p = tmp_path / "f.bin"
    p.write_bytes(b"0123456789")
    with open(p, "rb") as f:
        fh = rt.FileHandle.wrap_fd(f.fileno())
        assert fh.is_fd and not fh.is_host_allocation and fh.fd != f.fileno()
    assert repr(fh) == f"FileHandle<fd({fh.fd})>"
    assert os.pread(fh.fd, 3, 2) == b"234"  # still open after f is closed
    with pytest.raises(ValueError, match="not based on a host allocation"):
        fh.host_allocation
    with pytest.raises(ValueError, match="file descriptor -1"):
        rt.FileHandle.wrap_fd(-1)
    fh.close()
    fh.close()  # twice is a no-op
    with pytest.raises(RuntimeError):
        fh.is_fd


def test_views_outlive_the_index_and_closed_handles(tmp_path):
    path = tmp_path / "a.irpa"
    rt.save_archive_file({"x": X}, path)
    idx = rt.ParameterIndex()
    idx.load(str(path))  # mapped
    entry = idx[0]
    view = entry.file_view
    handle = entry.file_storage[0]
    whole = handle.host_allocation
    handle.close()
    del idx, entry, handle
    gc.collect()
    # The mapping stays while a view of it is alive.
    np.testing.assert_array_equal(np.asarray(view).view(np.float32).reshape(2, 3), X)
    assert whole.readonly and len(whole) == path.stat().st_size


def test_index_keeps_wrapped_memory_alive_until_released():
    before = len(_hal._imported)
    idx = rt.ParameterIndex()
    a = np.arange(16, dtype=np.uint8)
    idx.add_buffer("a", a)
    del a
    gc.collect()
    assert len(_hal._imported) == before + 1
    assert bytes(idx[0].file_view) == bytes(range(16))
    provider = idx.create_provider(scope="p")
    del idx
    gc.collect()
    assert len(_hal._imported) == before + 1  # the provider holds the index
    del provider
    gc.collect()
    assert len(_hal._imported) == before  # released: the memory is let go


# ---- ParameterIndex ----


def test_index_entries_splats_and_repr():
    idx = rt.ParameterIndex()
    idx.reserve(8)
    assert len(idx) == 0 and idx.items() == []
    idx.add_splat("f", np.float32(1.5), 64, metadata="m1")
    idx.add_splat("b", array.array("b", [3]), 5)
    idx.add_splat("q", b"\x01\x02\x03\x04\x05\x06\x07\x08", 32, b"m2")
    fh = rt.FileHandle.wrap_memory(b"foobar")
    idx.add_from_file_handle("data", fh, length=3, offset=3)
    idx.add_buffer("f", np.ones(2, np.float64))  # keys may repeat
    assert len(idx) == 5
    assert [k for k, _ in idx.items()] == ["f", "b", "q", "data", "f"]
    f = idx[0]
    assert (f.key, f.length, f.metadata, f.is_splat, f.is_file) == ("f", 64, b"m1", True, False)
    assert f.splat_pattern == np.float32(1.5).tobytes()
    assert repr(idx[1]) == "<ParameterIndexEntry 'b' splat b'\\x03':5>"
    assert idx[2].metadata == b"m2"
    d = idx[-2]
    handle, offset = d.file_storage
    assert isinstance(handle, rt.FileHandle) and offset == 3 and bytes(d.file_view) == b"bar"
    assert repr(d).startswith("<ParameterIndexEntry 'data' FileHandle<host_allocation(") and repr(d).endswith(":3:3>")
    with pytest.raises(ValueError, match="Entry is not file storage based"):
        f.file_storage
    with pytest.raises(ValueError, match="Entry is not file storage based"):
        f.file_view
    with pytest.raises(ValueError, match="Entry is not splat"):
        d.splat_pattern
    with pytest.raises(IndexError, match="entry 5 out of range"):
        idx[5]
    with pytest.raises(IndexError):
        idx[-6]
    text = repr(idx)
    assert "// Parameter scope <global> (5 entries, 120 total bytes)" in text
    assert "`data`" in text and "               3 |                6 |                3 | `data`" in text


@pytest.mark.parametrize("pattern,length", [
    (array.array("f", [1, 2, 3, 4, 5]), 600),  # over 16 bytes
    (b"abc", 9),  # not a power of two
    (np.int32(1), 6),  # does not divide the length
    (b"", 4),
])
def test_bad_splats(pattern, length):
    idx = rt.ParameterIndex()
    with pytest.raises(ValueError, match="1, 2, 4, 8 or 16"):
        idx.add_splat("w", pattern, length)
    assert len(idx) == 0


def test_add_errors():
    idx = rt.ParameterIndex()
    fh = rt.FileHandle.wrap_memory(b"foobar")
    with pytest.raises(IndexError, match=r"'k': \[4, \+3\) lies outside the 6 bytes"):
        idx.add_from_file_handle("k", fh, length=3, offset=4)
    with pytest.raises(TypeError, match="FileHandle"):
        idx.add_from_file_handle("k", b"foobar", 3)
    with pytest.raises(TypeError, match="key"):
        idx.add_splat(3, b"\x00", 4)
    with pytest.raises(TypeError, match="metadata"):
        idx.add_splat("k", b"\x00", 4, metadata=3.5)
    assert len(idx) == 0


@pytest.mark.parametrize("mmap", [True, False])
def test_load_every_format(tmp_path, mmap):
    files = {
        "p.irpa": None,
        "p.safetensors": safetensors_bytes({"x": X, "n": N}),
        "p.gguf": gguf_bytes({"x": X}),
    }
    src = rt.ParameterIndex()
    src.add_buffer("x", X)
    src.add_buffer("n", N)
    src.create_archive_file(str(tmp_path / "p.irpa"))
    for name, data in files.items():
        if data is not None:
            (tmp_path / name).write_bytes(data)
        idx = rt.ParameterIndex()
        idx.load(str(tmp_path / name), mmap=mmap)
        entries = dict(idx.items())
        np.testing.assert_array_equal(np.asarray(entries["x"].file_view).view(np.float32).reshape(2, 3), X)
        if "n" in entries:
            np.testing.assert_array_equal(np.asarray(entries["n"].file_view).view(np.int64), N)
    # The format may be given, and a file with another extension is read by
    # its first bytes.
    os.rename(tmp_path / "p.gguf", tmp_path / "weights.bin")
    idx = rt.ParameterIndex()
    idx.load(str(tmp_path / "weights.bin"))
    idx.load(str(tmp_path / "weights.bin"), format="gguf")
    assert [k for k, _ in idx.items()] == ["x", "x"]


def test_load_errors_name_the_file_and_the_entry(tmp_path):
    src = rt.ParameterIndex()
    src.add_buffer("first", np.ones(64, np.uint8))
    src.add_buffer("second", np.ones(64, np.uint8))
    good = tmp_path / "good.irpa"
    src.create_archive_file(str(good))
    data = good.read_bytes()
    second = dict(src.create_archive_file(str(tmp_path / "copy.irpa")).items())["second"]
    cut = tmp_path / "cut.irpa"
    cut.write_bytes(data[:second.file_storage[1] + 10])
    idx = rt.ParameterIndex()
    with pytest.raises(RuntimeError, match=r"cut\.irpa.*'second'.*truncated") as e:
        idx.load(str(cut))
    assert e.value.code == 15  # DATA_LOSS
    cut.write_bytes(data[:40])
    with pytest.raises(RuntimeError, match=r"cut\.irpa.*truncated"):
        idx.load(str(cut))
    bad = tmp_path / "bad.safetensors"
    st = bytearray(safetensors_bytes({"x": X}))
    bad.write_bytes(bytes(st[:-4]))
    with pytest.raises(RuntimeError, match=r"bad\.safetensors.*'x'.*truncated"):
        idx.load(str(bad))
    with pytest.raises(ValueError, match="magic"):
        idx.load(str(good), format="gguf")
    with pytest.raises(ValueError, match="no parser for parameter file format 'onnx'"):
        idx.load(str(good), format="onnx")
    (tmp_path / "junk.dat").write_bytes(b"not parameters at all")
    with pytest.raises(ValueError, match=r"junk\.dat is not a parameter file"):
        idx.load(str(tmp_path / "junk.dat"))
    with pytest.raises(ValueError, match=r"Error opening parameter file.*missing\.irpa"):
        idx.load(str(tmp_path / "missing.irpa"))
    assert len(idx) == 0  # failed loads add nothing


def test_load_from_file_handles(tmp_path):
    path = tmp_path / "p.irpa"
    rt.save_archive_file({"x": X, "s": rt.SplatValue(np.int16(-2), 8)}, path)
    mem = rt.ParameterIndex()
    mem.load_from_file_handle(rt.FileHandle.wrap_memory(path.read_bytes()), "irpa")
    with open(path, "rb") as f:
        fd = rt.ParameterIndex()
        fd.load_from_file_handle(rt.FileHandle.wrap_fd(f.fileno()), "irpa")
    for idx in (mem, fd):
        x = dict(idx.items())["x"]
        np.testing.assert_array_equal(rt.parameter_index_entry_as_numpy_flat_ndarray(x).view(np.float32).reshape(2, 3), X)
    assert repr(dict(fd.items())["x"]).startswith("<ParameterIndexEntry 'x' FileHandle<fd(")
    with pytest.raises(TypeError, match="FileHandle"):
        mem.load_from_file_handle(str(path), "irpa")


# ---- Archives ----


def test_create_archive_file_with_offset_and_target(tmp_path):
    idx = rt.ParameterIndex()
    rt.parameter_index_add_numpy_ndarray(idx, "x", X)
    idx.add_splat("z", np.int16(5), 16)
    target = rt.ParameterIndex()
    target.add_splat("already", b"\x00", 1)
    out = idx.create_archive_file(str(tmp_path / "a.irpa"), 4096, target)
    assert out is target and [k for k, _ in target.items()] == ["already", "x", "z"]
    x = dict(target.items())["x"]
    assert x.file_storage[1] >= 4096 and x.metadata == idx[0].metadata
    np.testing.assert_array_equal(rt.parameter_index_entry_as_numpy_ndarray(x), X)
    # The archive begins at the offset: loading from byte 0 fails by magic.
    with pytest.raises(ValueError, match="magic"):
        rt.ParameterIndex().load(str(tmp_path / "a.irpa"))
    with pytest.raises(ValueError, match="reads from it"):
        target.create_archive_file(str(tmp_path / "a.irpa"))
    with pytest.raises(TypeError, match="target_index"):
        idx.create_archive_file(str(tmp_path / "b.irpa"), 0, "index")


def test_save_archive_file_and_splat_values(tmp_path):
    v = rt.SplatValue(np.float32(0.25), [3, 4])
    assert v.total_length == 48 and repr(v) == "SplatValue(0.25 of 48)"
    assert rt.SplatValue(array.array("h", [7]), 5).total_length == 10
    assert rt.SplatValue(np.array([1], np.int8), 9).total_length == 9
    with pytest.raises(ValueError, match="single element"):
        rt.SplatValue(np.array([1, 2], np.int8), 4)
    path = tmp_path / "s.irpa"
    rt.save_archive_file({"v": v, "t": X.T, "n": N}, path)  # X.T is not contiguous
    idx = rt.ParameterIndex()
    idx.load(str(path), mmap=False)
    e = dict(idx.items())
    assert e["v"].is_splat and e["v"].length == 48 and e["v"].splat_pattern == np.float32(0.25).tobytes()
    np.testing.assert_array_equal(np.asarray(e["t"].file_view).view(np.float32).reshape(3, 2), X.T)
    np.testing.assert_array_equal(rt.parameter_index_entry_as_numpy_flat_ndarray(e["v"]).view(np.float32), np.full(12, 0.25, np.float32))


# ---- numpy helpers ----


@pytest.mark.parametrize("a", [
    np.arange(12, dtype=np.float16).reshape(3, 4),
    np.array([[True, False]]),
    np.array(1234, dtype=np.int32),
    np.arange(6, dtype=np.int64).reshape(2, 3).T,
    np.zeros((0, 4), np.float32),
], ids=["f16", "bool", "0d", "transposed", "empty"])
def test_numpy_round_trip(tmp_path, a):
    idx = rt.ParameterIndex()
    rt.parameter_index_add_numpy_ndarray(idx, "a", a)
    back = rt.parameter_index_entry_as_numpy_ndarray(idx[0])
    assert back.dtype == a.dtype and back.shape == a.shape
    np.testing.assert_array_equal(back, a)
    # Through an archive file.
    idx.create_archive_file(str(tmp_path / "a.irpa"))
    loaded = rt.ParameterIndex()
    loaded.load(str(tmp_path / "a.irpa"))
    np.testing.assert_array_equal(rt.parameter_index_entry_as_numpy_ndarray(loaded[0]), a)


def test_numpy_metadata_errors():
    idx = rt.ParameterIndex()
    idx.add_buffer("none", b"1234")
    idx.add_buffer("version", b"1234", metadata='TENSORv9:{"type": "Tensor"}')
    idx.add_buffer("kind", b"1234", metadata='TENSORv0:{"type": "Module", "dtype": "int8", "shape": [4]}')
    idx.add_buffer("dtype", b"1234", metadata='TENSORv0:{"type": "Tensor", "dtype": "quaternion", "shape": [4]}')
    idx.add_buffer("size", b"1234", metadata='TENSORv0:{"type": "Tensor", "dtype": "int32", "shape": [4]}')
    idx.add_buffer("json", b"1234", metadata="TENSORv0:{not json")
    idx.add_buffer("turbine", b"1234", metadata='PYTORCH:{"type": "Tensor", "dtype": "uint8", "shape": [2, 2]}')
    e = dict(idx.items())
    for key, msg in [("none", "Expected format version prefix"), ("version", "Unsupported metadata format version"),
                     ("kind", "is not a Tensor"), ("dtype", "Unsupported dtype"), ("size", "holds 4 bytes"),
                     ("json", "Bad metadata")]:
        with pytest.raises(ValueError, match=msg):
            rt.parameter_index_entry_as_numpy_ndarray(e[key])
    np.testing.assert_array_equal(rt.parameter_index_entry_as_numpy_ndarray(e["turbine"]), [[49, 50], [51, 52]])


# ---- io_parameters module ----


def test_module_resolves_parameters_by_scope(tmp_path, vmfb):
    x, n = X.copy(), N.copy()
    s1 = rt.ParameterIndex()
    s1.add_buffer("x", x)
    s1.add_buffer("n", n)
    s2 = rt.ParameterIndex()
    s2.add_splat("z", np.int16(-3), 16)
    got = run(vmfb, s1.create_provider(scope="s1"), s2.create_provider(scope="s2"))
    np.testing.assert_array_equal(got[0], X)
    np.testing.assert_array_equal(got[1], N)
    np.testing.assert_array_equal(got[2], np.full(8, -3, np.int16))
    x[:] = 0  # the context holds copies: the results do not change
    np.testing.assert_array_equal(got[0], X)

    # Providers over files: an archive (mapped), and a descriptor.
    s1.create_archive_file(str(tmp_path / "s1.irpa"))
    from_file = rt.ParameterIndex()
    from_file.load(str(tmp_path / "s1.irpa"))
    with open(tmp_path / "s1.irpa", "rb") as f:
        from_fd = rt.ParameterIndex()
        from_fd.load_from_file_handle(rt.FileHandle.wrap_fd(f.fileno()), "irpa")
    for idx in (from_file, from_fd):
        got = run(vmfb, idx.create_provider(scope="s1"), s2.create_provider(scope="s2"))
        np.testing.assert_array_equal(got[0], np.zeros((2, 3), np.float32))
        np.testing.assert_array_equal(got[1], N)


def test_module_keeps_providers_and_results_outlive_everything(vmfb):
    config = rt.Config("local-task")
    s1, s2 = rt.ParameterIndex(), rt.ParameterIndex()
    s1.add_buffer("x", X.copy())
    s1.add_buffer("n", N.copy())
    s2.add_splat("z", np.int16(4), 16)
    io = rt.create_io_parameters_module(config.vm_instance, s1.create_provider(scope="s1"), s2.create_provider(scope="s2"))
    assert io.name == "io_parameters"
    del s1, s2
    gc.collect()
    ctx = rt.SystemContext(config=config)
    ctx.add_vm_module(io)
    ctx.add_vm_module(rt.VmModule.copy_buffer(config.vm_instance, vmfb))
    del io
    gc.collect()
    results = ctx.modules.module.get()
    ctx.vm_context.close()
    gc.collect()
    np.testing.assert_array_equal(results[0].to_host(), X)
    np.testing.assert_array_equal(results[2].to_host(), np.full(8, 4, np.int16))


def test_module_errors(vmfb):
    s1, s2 = rt.ParameterIndex(), rt.ParameterIndex()
    s1.add_buffer("x", X)
    s2.add_splat("z", np.int16(1), 16)
    with pytest.raises(ValueError, match=r"'s1::n' not found.*no entry 'n'") as e:
        run(vmfb, s1.create_provider(scope="s1"), s2.create_provider(scope="s2"))
    assert e.value.code == 5  # NOT_FOUND
    s1.add_buffer("n", N[:2])
    with pytest.raises(ValueError, match=r"'s1::n' is 16 bytes, but the program expects 32"):
        run(vmfb, s1.create_provider(scope="s1"), s2.create_provider(scope="s2"))
    s1 = rt.ParameterIndex()
    s1.add_buffer("x", X)
    s1.add_buffer("n", N)
    with pytest.raises(ValueError, match=r"no parameter provider serves scope 's2'.*'s1'"):
        run(vmfb, s1.create_provider(scope="s1"))
    with pytest.raises(TypeError, match=r"providers\[1\]"):
        rt.create_io_parameters_module(rt.VmInstance(), s1.create_provider(), s1)


def test_module_takes_precedence_over_parameters_flag(tmp_path, vmfb):
    other = rt.ParameterIndex()
    other.add_splat("x", np.float32(9), 24)
    other.add_splat("n", np.int64(9), 32)
    other.add_splat("z", np.int16(9), 16)
    irpa = tmp_path / "flag.irpa"
    other.create_archive_file(str(irpa))
    s1, s2 = rt.ParameterIndex(), rt.ParameterIndex()
    s1.add_buffer("x", X)
    s1.add_buffer("n", N)
    s2.add_splat("z", np.int16(2), 16)
    try:
        rt.flags.parse_flags(f"--parameters=s1={irpa}", f"--parameters=s2={irpa}")
        got = run(vmfb, s1.create_provider(scope="s1"), s2.create_provider(scope="s2"))
        np.testing.assert_array_equal(got[0], X)
        # Without the module, the flag's file serves the program.
        config = rt.Config("local-task")
        bound = rt.load_vm_modules(rt.VmModule.copy_buffer(config.vm_instance, vmfb), config=config)
        np.testing.assert_array_equal(bound[0].get()[2].to_host(), np.full(8, 9, np.int16))
    finally:
        rt.flags.parse_flags("--parameters=")
