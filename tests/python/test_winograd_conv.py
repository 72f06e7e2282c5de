"""3×3 convolutions with unit strides, at least 128 input and output
channels, at least 16 4×4 output tiles and at most 4 MiB of transformed
filters (ResNet's 128-channel 3×3 layers) run as Winograd F(4×4, 3×3)
from ONNX: 36 matrix products of
the filters transformed at compile time [36, K, C] and the input tiles
transformed by (Bᵀ⊗Bᵀ) (with fewer than 128 tiles, the transposed
products: the tiles as rows). Against onnxruntime on vmvx and llvm-cpu: output
sides that are multiples of 4 and not (a crop), pads of 1 and of 0 (a
valid convolution, 2 pads at the end), bias + Relu, and cases that keep
the other forms (64 channels, 256 (9 MiB of transformed filters), stride
2, a weight that is an input). The
test checks the transformed filters' [36, K, C] (or [36, C, K]) constant in the input IR,
so a silent fallback fails it."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

# name: (C in, H, W, K out, stride, pad, bias + relu, weight constant, winograd)
CASES = {
    "c128_28x28": (128, 28, 28, 128, 1, 1, True, True, True),
    "c128_k144_48x44_tiles_as_columns": (128, 48, 44, 144, 1, 1, True, True, True),
    "c128_14x14_crop": (128, 14, 14, 128, 1, 1, False, True, True),
    "c256_keeps_tapped_filters_too_large": (256, 14, 14, 256, 1, 1, False, True, False),
    "c128_k160_valid_18x21": (128, 18, 21, 160, 1, 0, True, True, True),
    "c64_keeps_tapped": (64, 28, 28, 64, 1, 1, True, True, False),
    "stride2_keeps_gemm": (128, 28, 28, 128, 2, 1, True, True, False),
    "weight_input_keeps_tapped": (128, 16, 16, 128, 1, 1, False, False, False),
}


def _model(name, c, h, w, k, s, pad, bias_relu, const_w):
    rng = np.random.default_rng(sum(map(ord, name)))
    weight = (rng.standard_normal((k, c, 3, 3)) / np.sqrt(9 * c)).astype(np.float32)
    inits, ins, feeds = [], ["x", "w"], {}
    x = rng.standard_normal((1, c, h, w)).astype(np.float32)
    feeds["x"] = x
    graph_ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, w])]
    if const_w:
        inits.append(numpy_helper.from_array(weight, "w"))
    else:
        graph_ins.append(helper.make_tensor_value_info("w", TensorProto.FLOAT, [k, c, 3, 3]))
        feeds["w"] = weight
    if bias_relu:
        inits.append(numpy_helper.from_array(rng.standard_normal(k).astype(np.float32), "b"))
        ins.append("b")
    nodes = [helper.make_node("Conv", ins, ["conv"], kernel_shape=[3, 3], strides=[s, s], pads=[pad] * 4)]
    out = "conv"
    if bias_relu:
        nodes.append(helper.make_node("Relu", ["conv"], ["y"]))
        out = "y"
    oh, ow = (h + 2 * pad - 3) // s + 1, (w + 2 * pad - 3) // s + 1
    g = helper.make_graph(nodes, "wconv_" + name, graph_ins,
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, k, oh, ow])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, feeds


def _backends():
    have = ireec.query_available_targets()
    return [b for b in ("vmvx", "llvm-cpu") if b in have]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name", sorted(CASES))
def test_winograd_conv_matches_onnxruntime(name, backend, tmp_path):
    c, h, w, k, *_, form = CASES[name]
    model, feeds = _model(name, *CASES[name][:-1])
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    ir = ireec.compile_file(path, target_backends=[backend], extra_args=["--compile-to=input"])
    ir = ir.decode() if isinstance(ir, bytes) else ir
    # [36, K, C], or [36, C, K] with fewer than 128 tiles (the tiles are
    # then the products' rows).
    filters = [f"tensor<36x{k}x{c}xf32>", f"tensor<36x{c}x{k}xf32>"]
    found = any(f in ir for f in filters)
    assert found == form, f"winograd {form}: transformed filters {filters} in the input IR: {found}"
    # Their blob is among the module's resources (the printed IR reparses).
    assert ('__gree_winograd_filters: "0x' in ir) == form
    vmfb = ireec.compile_file(path, target_backends=[backend])
    drivers = ("local-sync", "local-task") if backend == "llvm-cpu" else ("local-task",)
    for driver in drivers:
        m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        got = np.asarray(getattr(m, model.graph.name)(*feeds.values()).to_host())
        assert got.shape == want.shape and np.count_nonzero(want) > 0
        # F(4×4, 3×3) rounds more than the direct sum: about 3e-5 at worst here.
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
        rel = np.linalg.norm(got - want) / np.linalg.norm(want)
        assert rel < 1e-5, f"relative L2 {rel}"
