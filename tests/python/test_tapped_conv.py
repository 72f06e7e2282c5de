"""Convolutions with unit strides at batch 1 (ONNX Conv, the 3×3 layers of
ResNet, DenseNet, SqueezeNet) as tapped products: the padded input,
flattened to [C, Hp·Wp], is B for every tap at the tap's offset, the
output is computed on a grid of Wp columns per row and cropped, so the
windows (KH·KW times the input) are never copied (codegen runs one
Contract per tap into the same C tile). Against onnxruntime on vmvx,
llvm-cpu (local-sync and local-task) and vulkan-spirv on lavapipe (the
windows and one product there): kernels 3×3, 5×5, 3×1, asymmetric and
no pads, bias + Relu, a residual add; and the cases that keep im2col
(rows under 7 times the grid's extra columns, 49 taps, fewer than 64
input channels, stride 2). The flow IR is checked for the
grid product [M, (OH-1)·Wp + OW], so a silent fallback fails the test."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402
from conftest import vulkan_unavailable  # noqa: E402

# name: (C in, (H, W), M out, (KH, KW), stride, pads [top, left, bottom, right], bias + relu, residual, tapped)
CASES = {
    "k3_pad1_bias_relu": (64, (10, 16), 16, (3, 3), 1, [1, 1, 1, 1], True, False, True),
    "k5_pad2": (72, (6, 29), 24, (5, 5), 1, [2, 2, 2, 2], False, False, True),
    "k3x1": (64, (11, 6), 8, (3, 1), 1, [1, 0, 1, 0], True, False, True),
    "asymmetric_pads": (64, (8, 15), 12, (3, 3), 1, [0, 1, 2, 1], True, False, True),
    "no_pad": (80, (9, 16), 8, (3, 3), 1, [0, 0, 0, 0], False, False, True),
    "residual": (64, (7, 14), 64, (3, 3), 1, [1, 1, 1, 1], True, True, True),
    "narrow_rows_im2col": (64, (10, 13), 8, (3, 3), 1, [1, 1, 1, 1], True, False, False),
    "k7_im2col": (64, (10, 20), 8, (7, 7), 1, [3, 3, 3, 3], True, False, False),
    "few_channels_im2col": (48, (10, 16), 8, (3, 3), 1, [1, 1, 1, 1], True, False, False),
    "stride2_im2col": (64, (10, 30), 8, (3, 3), 2, [1, 1, 1, 1], True, False, False),
}


def _model(name, c, hw, m, k, s, pads, bias_relu, residual):
    rng = np.random.default_rng(sum(map(ord, name)))
    inits = [numpy_helper.from_array((rng.standard_normal((m, c) + k) / np.sqrt(c * k[0] * k[1])).astype(np.float32), "w")]
    ins = ["x", "w"]
    if bias_relu:
        inits.append(numpy_helper.from_array(rng.standard_normal(m).astype(np.float32), "b"))
        ins.append("b")
    nodes = [helper.make_node("Conv", ins, ["conv"], kernel_shape=list(k), strides=[s, s], pads=pads)]
    out = "conv"
    if residual:
        nodes.append(helper.make_node("Add", ["conv", "x"], ["sum"]))
        out = "sum"
    if bias_relu:
        nodes.append(helper.make_node("Relu", [out], ["y"]))
        out = "y"
    oh = (hw[0] + pads[0] + pads[2] - k[0]) // s + 1
    ow = (hw[1] + pads[1] + pads[3] - k[1]) // s + 1
    g = helper.make_graph(nodes, "tconv_" + name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, *hw])],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, m, oh, ow])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = rng.standard_normal((1, c, *hw)).astype(np.float32)
    wp = hw[1] + pads[1] + pads[3]
    grid = f"tensor<{m}x{(oh - 1) * wp + ow}xf32>"
    return model, x, grid


def _targets():
    have = ireec.query_available_targets()
    out = [(b, d, []) for b in ("vmvx", "llvm-cpu") if b in have for d in ("local-sync", "local-task")]
    if "vulkan-spirv" in have:
        out.append(("vulkan-spirv", "vulkan", ["--iree-vulkan-target=llvmpipe"]))
    return out


@pytest.mark.parametrize("backend,driver,flags", _targets(), ids=lambda v: v if isinstance(v, str) else "")
@pytest.mark.parametrize("name", sorted(CASES))
def test_tapped_conv_matches_onnxruntime(name, backend, driver, flags, tmp_path):
    if driver == "vulkan" and (why := vulkan_unavailable()):
        pytest.skip(why)
    model, x, grid = _model(name, *CASES[name][:-1])
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    flow = ireec.compile_file(path, target_backends=[backend], extra_args=["--compile-to=flow", *flags])
    flow = flow.decode() if isinstance(flow, bytes) else flow
    assert (grid in flow) == CASES[name][-1], f"grid product {grid} in the flow IR: {grid in flow}"
    vmfb = ireec.compile_file(path, target_backends=[backend], extra_args=flags)
    m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
    got = np.asarray(getattr(m, model.graph.name)(x).to_host())
    assert got.shape == want.shape and np.count_nonzero(want) > 0
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=2e-5)
