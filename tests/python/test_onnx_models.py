"""Small ONNX models built with onnx.helper (no torch needed), compiled by
gree straight from the .onnx file (gree's importer, then the torch-onnx
input conversion), run on local-task and compared with onnxruntime.

They chain the ops of vision and transformer models the way exporters
write them: a CNN (padded/strided/grouped/depthwise Conv, BatchNorm, Relu,
MaxPool with ceil_mode, Add residual, GlobalAveragePool, Flatten, Gemm,
Softmax) and an attention block (shape arithmetic Shape/Gather/Concat
feeding Reshape, MatMul, Transpose, Softmax, LayerNormalization, Erf-GELU).
"""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

RNG = np.random.default_rng(6)


def _w(name, *shape, scale=0.3):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def _i64(name, vals):
    return numpy_helper.from_array(np.array(vals, np.int64), name)


def _run_both(model, feeds, tmp_path):
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)
    vmfb = ireec.compile_file(path, target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    fn = ctx.modules.module[model.graph.name]
    got = fn(*feeds.values())
    if not isinstance(got, tuple):
        got = (got,)
    return [np.asarray(g.to_host()) for g in got], want


def test_cnn_matches_onnxruntime(tmp_path):
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], strides=[2, 2]),
        helper.make_node("BatchNormalization", ["c1", "s1", "o1", "m1", "v1"], ["n1"], epsilon=1e-3),
        helper.make_node("Relu", ["n1"], ["r1"]),
        helper.make_node("Conv", ["r1", "wd"], ["d1"], group=8, pads=[1, 1, 1, 1]),
        helper.make_node("Clip", ["d1", "lo", "hi"], ["k1"]),
        helper.make_node("Conv", ["k1", "wg"], ["g1"], group=2),
        helper.make_node("Add", ["g1", "r1"], ["a1"]),
        helper.make_node("MaxPool", ["a1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1),
        helper.make_node("GlobalAveragePool", ["p1"], ["gp"]),
        helper.make_node("Flatten", ["gp"], ["f"]),
        helper.make_node("Gemm", ["f", "wf", "bf"], ["logits"], transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], axis=1),
    ]
    inits = [
        _w("w1", 8, 3, 3, 3), _w("b1", 8), _w("s1", 8), _w("o1", 8), _w("m1", 8),
        numpy_helper.from_array(RNG.uniform(0.5, 1.5, 8).astype(np.float32), "v1"),
        _w("wd", 8, 1, 3, 3), _w("wg", 8, 4, 1, 1),
        numpy_helper.from_array(np.array(0.0, np.float32), "lo"), numpy_helper.from_array(np.array(6.0, np.float32), "hi"),
        _w("wf", 10, 8), _w("bf", 10),
    ]
    g = helper.make_graph(nodes, "cnn", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 17, 15])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = RNG.standard_normal((2, 3, 17, 15)).astype(np.float32)
    (got,), (want,) = _run_both(model, {"x": x}, tmp_path)
    assert got.shape == want.shape == (2, 10)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)


def test_attention_block_matches_onnxruntime(tmp_path):
    B, S, D, H = 2, 6, 16, 4
    nodes = [
        # q, k, v projections and [B, S, H, D/H] heads via a computed shape
        helper.make_node("MatMul", ["x", "wq"], ["q"]),
        helper.make_node("MatMul", ["x", "wk"], ["k"]),
        helper.make_node("MatMul", ["x", "wv"], ["v"]),
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Gather", ["xs", "i0"], ["b"], axis=0),
        helper.make_node("Gather", ["xs", "i1"], ["s"], axis=0),
        helper.make_node("Concat", ["b", "s", "heads", "hd"], ["hshape"], axis=0),
        helper.make_node("Reshape", ["q", "hshape"], ["qh"]),
        helper.make_node("Reshape", ["k", "hshape"], ["kh"]),
        helper.make_node("Reshape", ["v", "hshape"], ["vh"]),
        helper.make_node("Transpose", ["qh"], ["qt"], perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["kh"], ["kt"], perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["vh"], ["vt"], perm=[0, 2, 1, 3]),
        helper.make_node("MatMul", ["qt", "kt"], ["sc"]),
        helper.make_node("Div", ["sc", "scale"], ["scd"]),
        helper.make_node("Softmax", ["scd"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "vt"], ["o"]),
        helper.make_node("Transpose", ["o"], ["ot"], perm=[0, 2, 1, 3]),
        helper.make_node("Concat", ["b", "s", "dm"], ["oshape"], axis=0),
        helper.make_node("Reshape", ["ot", "oshape"], ["att"]),
        helper.make_node("Add", ["att", "x"], ["res"]),
        helper.make_node("LayerNormalization", ["res", "ln_s", "ln_b"], ["ln"], axis=-1, epsilon=1e-5),
        # GELU (erf form) feed-forward
        helper.make_node("MatMul", ["ln", "w1"], ["h"]),
        helper.make_node("Div", ["h", "sqrt2"], ["hs"]),
        helper.make_node("Erf", ["hs"], ["he"]),
        helper.make_node("Add", ["he", "one"], ["he1"]),
        helper.make_node("Mul", ["h", "he1"], ["hm"]),
        helper.make_node("Mul", ["hm", "half"], ["gelu"]),
        helper.make_node("MatMul", ["gelu", "w2"], ["y"]),
    ]
    f = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)  # noqa: E731
    inits = [
        _w("wq", D, D), _w("wk", D, D), _w("wv", D, D), _w("w1", D, 2 * D), _w("w2", 2 * D, D),
        _i64("i0", [0]), _i64("i1", [1]), _i64("heads", [H]), _i64("hd", [D // H]), _i64("dm", [D]),
        f("scale", np.sqrt(D // H)), f("sqrt2", np.sqrt(2.0)), f("one", 1.0), f("half", 0.5),
        _w("ln_s", D, scale=1.0), _w("ln_b", D),
    ]
    g = helper.make_graph(nodes, "block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [B, S, D])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [B, S, D])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    x = RNG.standard_normal((B, S, D)).astype(np.float32)
    (got,), (want,) = _run_both(model, {"x": x}, tmp_path)
    assert got.shape == want.shape == (B, S, D)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
