"""Matrix-vector products with a constant weight (a classifier's Gemm or
MatMul with one row of activations) are compiled with the weight packed
into contiguous panels of columns (flow's packConstantGEMV). Each case
checks that the packing happened, or did not where it must not, and that
the results match onnxruntime on vmvx and llvm-cpu, local-sync and
local-task."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

# name: (op, rows M, K, N, packed)
CASES = {
    "classifier_gemm": ("Gemm", 1, 1280, 1000, True),  # panels of 40 columns
    "gemm_n512": ("Gemm", 1, 96, 512, True),  # panels of 64
    "gemm_n300": ("Gemm", 1, 200, 300, True),  # panels of 60
    "matmul_kn": ("MatMul", 1, 128, 384, True),  # B stored [K, N]
    "gemm_two_rows": ("Gemm", 2, 256, 512, False),
    "gemm_prime_n": ("Gemm", 1, 256, 307, False),  # no panel width divides N
    "gemm_small_k": ("Gemm", 1, 32, 512, False),
}


def _model(name, op, m, k, n):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    if op == "Gemm":
        w = rng.standard_normal((n, k)).astype(np.float32)
        inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(rng.standard_normal(n).astype(np.float32), "b")]
        node = helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)
    else:
        w = rng.standard_normal((k, n)).astype(np.float32)
        inits = [numpy_helper.from_array(w, "w")]
        node = helper.make_node("MatMul", ["x", "w"], ["y"])
    g = helper.make_graph([node], "gemv_" + name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [m, k])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [m, n])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, rng.standard_normal((m, k)).astype(np.float32)


def _backends():
    have = ireec.query_available_targets()
    return [b for b in ("vmvx", "llvm-cpu") if b in have]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name", sorted(CASES))
def test_constant_gemv_packing(name, backend, tmp_path):
    op, m, k, n, packed = CASES[name]
    model, x = _model(name, op, m, k, n)
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    flow = ireec.compile_file(path, target_backends=[backend], extra_args=["--compile-to=flow"])
    flow = flow.decode() if isinstance(flow, bytes) else flow
    assert ("__gree_gemv_packed" in flow) == packed, f"packing applied: {not packed}, expected {packed}"
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    vmfb = ireec.compile_file(path, target_backends=[backend])
    for driver in ("local-sync", "local-task"):
        mod = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        got = np.asarray(getattr(mod, model.graph.name)(x).to_host())
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
