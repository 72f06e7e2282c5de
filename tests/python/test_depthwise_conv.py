"""Depthwise convolutions (ONNX Conv with group = channels, NCHW), and
dense ones with few input channels (an RGB network's first layer), through
llvm-cpu's DWConv tile op and vmvx's generic kernels, on local-sync and
local-task, against onnxruntime: strides 1-3, dilation, zero, symmetric
and asymmetric pads (fused into the convolution), a batch, no bias, and
bias + Clip epilogues fused into the tile op, or swept over the planes
when the graph also returns the raw convolution. Each llvm-cpu case also checks that its
kernels use the tile op, so a silent fallback fails the test."""

import re

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

# name: (N, C, H, W, kernel, strides, dilations, pads [top, left, bottom, right], bias, clip)
CASES = {
    "mobilenet_like": (1, 24, 14, 14, 3, 1, 1, [1, 1, 1, 1], True, True),
    "stride2_bias": (1, 16, 30, 30, 3, 2, 1, [1, 1, 1, 1], True, False),
    "dilation2": (1, 8, 20, 23, 3, 1, 2, [2, 2, 2, 2], False, False),
    "k5_stride3": (1, 6, 17, 19, 5, 3, 1, [2, 2, 2, 2], True, True),
    "valid": (1, 5, 9, 9, 3, 1, 1, [0, 0, 0, 0], True, False),
    "asymmetric": (1, 7, 10, 12, 3, 1, 1, [0, 1, 2, 0], False, True),
    "batch2": (2, 12, 11, 13, 3, 2, 1, [1, 1, 1, 1], True, True),
    "wide_rows": (1, 3, 6, 300, 3, 1, 1, [1, 1, 1, 1], True, True),
}

# Dense (group 1) convolutions small enough to stay direct: name: (CI, the
# depthwise parameters above, with C the output channels).
DENSE = {
    "rgb_stem_s2": (3, (1, 32, 30, 30, 3, 2, 1, [1, 1, 1, 1], True, True)),
    "dense2_dil2": (2, (1, 5, 17, 19, 3, 1, 2, [2, 2, 2, 2], False, False)),
    "dense3_batch2": (3, (2, 7, 11, 12, 3, 1, 1, [1, 0, 1, 0], True, False)),
}


def _model(name, n, c, h, w, k, s, d, pads, bias, clip, also_raw=False, cin=None):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    group, wc, xc = c, 1, c
    if cin is not None:
        group, wc, xc = 1, cin, cin
    inits = [numpy_helper.from_array((rng.standard_normal((c, wc, k, k)) * 0.5).astype(np.float32), "w")]
    ins = ["x", "w"]
    if bias:
        inits.append(numpy_helper.from_array(rng.standard_normal(c).astype(np.float32), "b"))
        ins.append("b")
    nodes = [helper.make_node("Conv", ins, ["conv"], group=group, kernel_shape=[k, k], strides=[s, s], dilations=[d, d], pads=pads)]
    out = "conv"
    if clip:
        inits += [numpy_helper.from_array(np.array(0.0, np.float32), "lo"), numpy_helper.from_array(np.array(6.0, np.float32), "hi")]
        nodes.append(helper.make_node("Clip", ["conv", "lo", "hi"], ["y"]))
        out = "y"
    oh = (h + pads[0] + pads[2] - d * (k - 1) - 1) // s + 1
    ow = (w + pads[1] + pads[3] - d * (k - 1) - 1) // s + 1
    outs = [helper.make_tensor_value_info(out, TensorProto.FLOAT, [n, c, oh, ow])]
    if also_raw and out != "conv":
        outs.append(helper.make_tensor_value_info("conv", TensorProto.FLOAT, [n, c, oh, ow]))
    g = helper.make_graph(nodes, "dw_" + name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [n, xc, h, w])], outs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = rng.standard_normal((n, xc, h, w)).astype(np.float32) * 3
    return model, x


def _backends():
    have = ireec.query_available_targets()
    return [b for b in ("vmvx", "llvm-cpu") if b in have]


def _check(model, x, backend, tmp_path, fused=(), summed=None):
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})
    if backend == "llvm-cpu":
        kernels = ireec.compile_file(path, target_backends=[backend], extra_args=["--compile-to=executable-targets"])
        kernels = kernels.decode() if isinstance(kernels, bytes) else kernels
        lines = [ln for ln in kernels.splitlines() if re.search(r"\bdwconv b\d", ln)]
        assert lines, "the depthwise convolution did not use the DWConv tile op"
        if summed is not None:
            assert any(re.search(r"sum\(%\d+", ln) for ln in lines)
            consts = dict(re.findall(r"%(\d+) = constant (-?\d+) : i64", kernels))
            sums = [re.search(r"sum\(%(\d+),", ln).group(1) for ln in lines]
            assert any(consts.get(v) == str(summed) for v in sums), f"no tile op sums {summed} input planes: {lines}"
        for part in fused:
            assert any(part in ln for ln in lines), f"the epilogue's {part!r} is not fused into the tile op: {lines}"
    vmfb = ireec.compile_file(path, target_backends=[backend])
    for driver in ("local-sync", "local-task"):
        m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        got = getattr(m, model.graph.name)(x)
        got = got if isinstance(got, tuple) else (got,)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            g = np.asarray(g.to_host())
            assert g.shape == w.shape
            assert np.count_nonzero(w) > 0
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name", sorted(CASES))
def test_depthwise_conv_matches_onnxruntime(name, backend, tmp_path):
    model, x = _model(name, *CASES[name])
    bias, clip = CASES[name][-2:]
    # Bias and Clip run inside the tile op, not as a sweep after it.
    fused = (["+ bias"] if bias else []) + ([" max ", " min "] if clip else [])
    _check(model, x, backend, tmp_path, fused)


@pytest.mark.parametrize("backend", _backends())
def test_depthwise_conv_result_also_returned(backend, tmp_path):
    # The graph returns the raw convolution and its clipped form: the
    # epilogue then reads the convolution's own result buffer.
    model, x = _model("raw_and_clip", 1, 10, 9, 11, 3, 1, 1, [1, 1, 1, 1], True, True, also_raw=True)
    _check(model, x, backend, tmp_path)


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name", sorted(DENSE))
def test_small_dense_conv_matches_onnxruntime(name, backend, tmp_path):
    cin, params = DENSE[name]
    model, x = _model(name, *params, cin=cin)
    bias, clip = params[-2:]
    fused = (["+ bias"] if bias else []) + ([" max ", " min "] if clip else [])
    _check(model, x, backend, tmp_path, fused, summed=cin)
