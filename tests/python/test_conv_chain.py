"""Convolution chains: a 1×1 convolution (bias, Clip) whose result only a
depthwise convolution (bias, Clip) reads, as in MobileNetV2's blocks.
On llvm-cpu one kernel computes both (codegen's convChain: each workgroup
expands the input rows its strip of output rows needs into workgroup
scratch, then convolves them). Each case checks, on local-sync and
local-task:
- that the chain is one kernel with a scratch tile (or two kernels where
  it is not fused: planes wider than 64 columns);
- the result against onnxruntime;
- the same bits as the unfused chain: the same graph that also returns the
  1×1 convolution's result keeps the two dispatches apart."""

import re

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

pytestmark = pytest.mark.skipif("llvm-cpu" not in ireec.query_available_targets(),
                                reason="llvm-cpu is not available (LLVM not installed)")

# name: (input channels, expanded channels, H, W, depthwise stride, fused)
CASES = {
    "s1_56": (24, 144, 56, 56, 1, True),  # two strips of 28 rows
    "s2_56": (24, 144, 56, 56, 2, True),
    "s1_odd": (5, 20, 23, 17, 1, True),  # 20 channels: a last block of 4
    "s2_odd": (7, 12, 45, 31, 2, True),  # strips of unequal shapes
    "s1_7x7": (16, 40, 7, 7, 1, True),
    "wide": (8, 16, 9, 80, 1, False),  # wider than 64 columns: two dispatches
}


def _model(name, cin, c, h, w, s, also_expanded=False):
    rng = np.random.default_rng(abs(hash(name)) % 2**32)
    f = np.float32
    inits = [
        numpy_helper.from_array((rng.standard_normal((c, cin, 1, 1)) * 0.5).astype(f), "w1"),
        numpy_helper.from_array(rng.standard_normal(c).astype(f), "b1"),
        numpy_helper.from_array((rng.standard_normal((c, 1, 3, 3)) * 0.5).astype(f), "w2"),
        numpy_helper.from_array(rng.standard_normal(c).astype(f), "b2"),
        numpy_helper.from_array(np.array(0.0, f), "lo"),
        numpy_helper.from_array(np.array(6.0, f), "hi"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["e"], kernel_shape=[1, 1]),
        helper.make_node("Clip", ["e", "lo", "hi"], ["ec"]),
        helper.make_node("Conv", ["ec", "w2", "b2"], ["d"], group=c, kernel_shape=[3, 3], strides=[s, s], pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["d", "lo", "hi"], ["y"]),
    ]
    oh, ow = (h - 1) // s + 1, (w - 1) // s + 1
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, c, oh, ow])]
    if also_expanded:
        outs.append(helper.make_tensor_value_info("ec", TensorProto.FLOAT, [1, c, h, w]))
    g = helper.make_graph(nodes, "chain_" + name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, cin, h, w])], outs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, rng.standard_normal((1, cin, h, w)).astype(f)


def _run(model, x, tmp_path, tag):
    path = str(tmp_path / f"{tag}.onnx")
    onnx.save(model, path)
    kernels = ireec.compile_file(path, target_backends=["llvm-cpu"], extra_args=["--compile-to=executable-targets"])
    kernels = kernels.decode() if isinstance(kernels, bytes) else kernels
    vmfb = ireec.compile_file(path, target_backends=["llvm-cpu"])
    outs = {}
    for driver in ("local-sync", "local-task"):
        m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        got = getattr(m, model.graph.name)(x)
        got = got if isinstance(got, tuple) else (got,)
        outs[driver] = [np.asarray(g.to_host()) for g in got]
    return path, kernels, outs


@pytest.mark.parametrize("name", sorted(CASES))
def test_conv_chain(name, tmp_path):
    *shape, fused = CASES[name]
    model, x = _model(name, *shape)
    path, kernels, outs = _run(model, x, tmp_path, "chain")
    # Kernels that hold a scratch tile, and the kernels the chain's two
    # tile ops are in.
    chunks = kernels.split("\nkernel @")[1:]
    with_scratch = [k for k in chunks if re.search(r"shared s\d+: f32 x \d+ scratch", k)]
    if fused:
        assert len(with_scratch) == 1, kernels[:3000]
        k = with_scratch[0]
        assert re.search(r"\bcontract b", k) and re.search(r"\bdwconv b", k), "the chain's Contract and DWConv are not in one kernel"
    else:
        assert not with_scratch
    assert any(re.search(r"\bcontract b", k) for k in chunks) and any(re.search(r"\bdwconv b", k) for k in chunks)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, {"x": x})[0]
    assert np.count_nonzero(want) > 0
    apart_model, _ = _model(name, *shape, also_expanded=True)
    _, apart_kernels, apart = _run(apart_model, x, tmp_path, "apart")
    assert "scratch" not in apart_kernels
    for driver, got in outs.items():
        np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-5)
        # The same sums in the same order: the same bits as two dispatches.
        np.testing.assert_array_equal(got[0], apart[driver][0])
