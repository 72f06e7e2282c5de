"""Grouped convolutions (ONNX Conv with 1 < group < channels, RegNet's and
ResNeXt's 3×3 layers) against onnxruntime on vmvx and llvm-cpu, local-sync
and local-task: 1-D and 2-D, strides, dilation, pads, bias + Relu, a batch
of two and a channel multiplier (which keep the direct convolution). A
batch of one with at least 8 products per output per group becomes
im2col + a matrix product batched over the groups: the test checks the
windows' [G, C·ΠK, ΠO] matrix in the flow IR, so a silent fallback to the
direct convolution fails it."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

# name: (N, C in, spatial dims, M out, group, kernel, stride, dilation, pad, bias + relu, form)
CASES = {
    "regnet_like": (1, 32, (14, 14), 32, 2, 3, 1, 1, 1, True, "tapped"),
    "regnet_7x7": (1, 64, (7, 7), 64, 4, 3, 1, 1, 1, True, "tapped"),
    "stride2_dilation2": (1, 24, (17, 19), 36, 3, 3, 2, 2, 2, False, "gemm"),
    "conv1d_k5": (1, 16, (40,), 24, 4, 5, 2, 1, 2, True, "gemm"),
    "batch2_direct": (2, 16, (9, 9), 16, 2, 3, 1, 1, 1, True, "direct"),
    "multiplier_direct": (1, 6, (10, 10), 12, 6, 3, 1, 1, 1, False, "direct"),
}


def _model(name, n, c, spatial, m, group, k, s, d, pad, bias_relu):
    rng = np.random.default_rng(sum(map(ord, name)))
    ns = len(spatial)
    inits = [numpy_helper.from_array((rng.standard_normal((m, c // group) + (k,) * ns) * 0.3).astype(np.float32), "w")]
    ins = ["x", "w"]
    if bias_relu:
        inits.append(numpy_helper.from_array(rng.standard_normal(m).astype(np.float32), "b"))
        ins.append("b")
    nodes = [helper.make_node("Conv", ins, ["conv"], group=group, kernel_shape=[k] * ns, strides=[s] * ns,
                              dilations=[d] * ns, pads=[pad] * (2 * ns))]
    out = "conv"
    if bias_relu:
        nodes.append(helper.make_node("Relu", ["conv"], ["y"]))
        out = "y"
    outs = [(x + 2 * pad - d * (k - 1) - 1) // s + 1 for x in spatial]
    g = helper.make_graph(nodes, "gconv_" + name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, c, *spatial])],
                          [helper.make_tensor_value_info(out, TensorProto.FLOAT, [n, m, *outs])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = rng.standard_normal((n, c, *spatial)).astype(np.float32)
    cols = f"tensor<{group}x{c // group * k ** ns}x{int(np.prod(outs))}xf32>"
    if ns == 2 and s == 1 and d == 1:
        wp = spatial[1] + 2 * pad
        cols = f"tensor<{group}x{m // group}x{(outs[0] - 1) * wp + outs[1]}xf32>"
    return model, x, cols


def _backends():
    have = ireec.query_available_targets()
    return [b for b in ("vmvx", "llvm-cpu") if b in have]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name", sorted(CASES))
def test_grouped_conv_matches_onnxruntime(name, backend, tmp_path):
    model, x, cols = _model(name, *CASES[name][:-1])
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    flow = ireec.compile_file(path, target_backends=[backend], extra_args=["--compile-to=flow"])
    flow = flow.decode() if isinstance(flow, bytes) else flow
    form = CASES[name][-1]
    assert (cols in flow) == (form != "direct"), f"{form}: {cols} in the flow IR: {cols in flow}"
    vmfb = ireec.compile_file(path, target_backends=[backend])
    for driver in ("local-sync", "local-task"):
        m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        got = np.asarray(getattr(m, model.graph.name)(x).to_host())
        assert got.shape == want.shape and np.count_nonzero(want) > 0
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
