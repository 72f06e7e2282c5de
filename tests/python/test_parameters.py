"""Parameters: programs whose weights are parameter globals
(#flow.parameter.named) load them from .irpa, .safetensors and .gguf files
given with --parameters, through the tools and through Python
(iree_go.runtime.flags.parse_flags); iree-create-parameters,
iree-dump-parameters and iree-convert-parameters write and read the files."""

import json
import os
import struct
import subprocess

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

PROGRAM = """
util.global private @weight = #flow.parameter.named<"model"::"weight"> : tensor<4x3xf32>
util.global private @bias = #flow.parameter.named<"model"::"bias"> : tensor<3xf32>
func.func @predict(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = util.global.load @weight : tensor<4x3xf32>
  %b = util.global.load @bias : tensor<3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  %m = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%z : tensor<2x3xf32>) -> tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%m, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}
"""

W = (np.arange(12, dtype=np.float32).reshape(4, 3) * 0.5 - 2.0)
B = np.array([1.0, -1.0, 0.25], dtype=np.float32)
X = np.arange(8, dtype=np.float32).reshape(2, 4) + 1.0


def tool(bin_dir, name, *args):
    return subprocess.run([os.path.join(bin_dir, name), *args], capture_output=True, text=True, timeout=120)


def safetensors(path, tensors):
    header, data, off = {}, b"", 0
    for name, a in tensors.items():
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [off, off + a.nbytes]}
        data += a.tobytes()
        off += a.nbytes
    h = json.dumps(header).encode()
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)) + h + data)


@pytest.fixture
def params_reset():
    yield
    ireert.flags.parse_flags("--parameters=")


@pytest.fixture
def vmfb(tmp_path):
    data = ireec.compile_str(PROGRAM, target_backends=["vmvx"])
    assert W.tobytes()[:16] not in data  # the module holds no weights
    p = tmp_path / "p.vmfb"
    p.write_bytes(data)
    return str(p)


def test_create_dump_and_run(bin_dir, tmp_path, vmfb):
    (tmp_path / "w.bin").write_bytes(W.tobytes())
    irpa = str(tmp_path / "p.irpa")
    r = tool(bin_dir, "iree-create-parameters", f"--data=weight=4x3xf32=@{tmp_path / 'w.bin'}",
             "--data=bias=3xf32=0.5", "--splat=zeros=16xf32=0", f"--output={irpa}")
    assert r.returncode == 0, r.stderr
    assert "`weight`" in r.stdout and "`zeros`" in r.stdout
    r = tool(bin_dir, "iree-dump-parameters", f"--parameters=model={irpa}", f"--extract=model::weight={tmp_path / 'out.bin'}")
    assert r.returncode == 0, r.stderr
    assert "// Parameter scope `model` (3 entries, 124 total bytes)" in r.stdout
    assert (tmp_path / "out.bin").read_bytes() == W.tobytes()
    r = tool(bin_dir, "iree-run-module", f"--module={vmfb}", f"--parameters=model={irpa}",
             "--input=2x4xf32=1 2 3 4 5 6 7 8", f"--output=@{tmp_path / 'y.npy'}")
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), X @ W + 0.5, rtol=1e-6)
    r = tool(bin_dir, "iree-run-module", f"--module={vmfb}", f"--parameters=other={irpa}", "--input=2x4xf32=0")
    assert r.returncode != 0 and "NOT_FOUND" in r.stderr and "model::weight" in r.stderr


def load(vmfb):
    config = ireert.Config("local-task")
    ctx = ireert.SystemContext(config=config)
    ctx.add_vm_module(ireert.VmModule.mmap(config.vm_instance, vmfb))
    return ctx


def test_convert_safetensors_and_python_api(bin_dir, tmp_path, vmfb, params_reset):
    st = str(tmp_path / "p.safetensors")
    safetensors(st, {"w": W, "bias": B})
    irpa = str(tmp_path / "converted.irpa")
    r = tool(bin_dir, "iree-convert-parameters", f"--parameters={st}", "--rename=w=weight", f"--output={irpa}")
    assert r.returncode == 0, r.stderr
    assert "`weight`" in r.stdout and "`bias`" in r.stdout

    ireert.flags.parse_flags(f"--parameters=model={irpa}")
    y = load(vmfb).modules.module.predict(X).to_host()
    np.testing.assert_allclose(y, X @ W + B, rtol=1e-6)

    # The safetensors file names the weight "w": loading is NOT_FOUND naming it.
    ireert.flags.parse_flags("--parameters=", f"--parameters=model={st}")
    with pytest.raises(Exception, match="model::weight") as e:
        load(vmfb)
    assert e.value.code == 5  # NOT_FOUND


def test_compiler_exports_and_splats_parameters(bin_dir, tmp_path):
    src = """
util.global private @w = dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
func.func @f(%x: tensor<1x2xf32>) -> tensor<1x2xf32> {
  %w = util.global.load @w : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x2xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<1x2xf32>) -> tensor<1x2xf32>
  %m = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x2xf32>) outs(%z : tensor<1x2xf32>) -> tensor<1x2xf32>
  return %m : tensor<1x2xf32>
}
"""
    exported, splat = tmp_path / "exp.irpa", tmp_path / "splat.irpa"
    vmfb = ireec.compile_str(src, target_backends=["vmvx"], extra_args=[
        f"--iree-parameter-export=s={exported}", "--iree-parameter-export-minimum-size=0",
        f"--iree-parameter-splat={splat}"])
    assert np.float32(3.0).tobytes() + np.float32(4.0).tobytes() not in vmfb
    (tmp_path / "m.vmfb").write_bytes(vmfb)
    for archive, want in ((exported, "1x2xf32=[7 10]"), (splat, "1x2xf32=[0 0]")):
        r = tool(bin_dir, "iree-run-module", f"--module={tmp_path / 'm.vmfb'}", f"--parameters=s={archive}",
                 "--input=1x2xf32=1 2")
        assert r.returncode == 0, r.stderr
        assert want in r.stdout
