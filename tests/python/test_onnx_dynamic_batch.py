"""ONNX models with a dynamic batch (torch.onnx's dynamic_axes; issue 27).

A model whose graph inputs share one symbolic dimension compiles once, as
the program of one batch item, when no node mixes the items (the importer
checks it by importing at batch sizes 1 and 3 and asking each node); the
entry function loops over the run-time batch size. The models here are
built with onnx.helper (no torch needed) and compared with onnxruntime at
several batch sizes: a small CNN, torch's multi-head-attention layout (the
batch merged with the heads, then with the sequence rows, and split back),
a sequence-first LSTM (batch on axis 1), and two batch inputs. Models whose
nodes do mix items (Softmax or a reduction over the batch, a product that
contracts over it, training-mode BatchNormalization, a slice of the batch)
fail to compile with an error naming the node and why. bench/models.py
--dynamic-batch runs the torchvision/transformer/recurrent set.
"""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

RNG = np.random.default_rng(2027)
F = TensorProto.FLOAT


def _backend():
    return "llvm-cpu" if "llvm-cpu" in ireec.query_available_targets() else "vmvx"


def _init(name, shape, scale=0.3):
    return numpy_helper.from_array((RNG.standard_normal(shape) * scale).astype(np.float32), name)


def _i64(name, vals):
    return numpy_helper.from_array(np.array(vals, dtype=np.int64), name)


def _model(nodes, inputs, outputs, inits, opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    return m


def _compile(tmp_path, m, name="m"):
    path = tmp_path / f"{name}.onnx"
    onnx.save(m, str(path))
    return path, ireec.compile_file(str(path), target_backends=[_backend()])


def _fn(vmfb):
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    return ctx.modules.module["g"]


def _check(tmp_path, m, make_inputs, batches=(1, 3, 5)):
    path, vmfb = _compile(tmp_path, m)
    fn = _fn(vmfb)
    sess = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    names = [i.name for i in sess.get_inputs()]
    for b in batches:
        feeds = make_inputs(b)
        want = sess.run(None, dict(zip(names, feeds)))
        got = fn(*feeds)
        if not isinstance(got, tuple):
            got = (got,)
        for g, w in zip(got, want):
            g = np.asarray(g.to_host() if hasattr(g, "to_host") else g)
            assert g.shape == w.shape, (b, g.shape, w.shape)
            err = np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-30)
            assert err <= 1e-5, (b, err)
    return fn


def test_cnn_runs_at_any_batch(tmp_path):
    nodes = [
        helper.make_node("Conv", ["x", "w", "bias"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node("MaxPool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("GlobalAveragePool", ["p"], ["gp"]),
        helper.make_node("Flatten", ["gp"], ["f"]),
        helper.make_node("Gemm", ["f", "fc", "fcb"], ["y"], transB=1),
        helper.make_node("Softmax", ["y"], ["prob"], axis=-1),
    ]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 3, 8, 8])],
               [helper.make_tensor_value_info("prob", F, ["batch", 5])],
               [_init("w", (4, 3, 3, 3)), _init("bias", (4,)), _init("fc", (5, 4)), _init("fcb", (5,))])
    fn = _check(tmp_path, m, lambda b: [RNG.standard_normal((b, 3, 8, 8)).astype(np.float32)])
    # An empty batch gives an empty result.
    got = np.asarray(fn(np.zeros((0, 3, 8, 8), np.float32)))
    assert got.shape == (0, 5)


def test_attention_layout_with_merged_batch(tmp_path):
    """torch's multi-head attention (batch_first): [B,S,E] → [S,B,E] →
    [S, B·H, d] with B·H from Shape → [B·H, S, d], scores, softmax, values,
    → [S·B, E] rows through a Gemm → [S, B, E] → [B, S, E]."""
    S, E, H = 6, 8, 2
    d = E // H
    nodes = [
        helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
        helper.make_node("Shape", ["xt"], ["shp"]),
        helper.make_node("Gather", ["shp", "one"], ["bsz"], axis=0),
        helper.make_node("Mul", ["bsz", "heads"], ["bh"]),
        helper.make_node("Concat", ["seq", "bh", "hd"], ["qshape"], axis=0),
        helper.make_node("Reshape", ["xt", "qshape"], ["q3"]),
        helper.make_node("Transpose", ["q3"], ["q"], perm=[1, 0, 2]),
        helper.make_node("Transpose", ["q"], ["kt"], perm=[0, 2, 1]),
        helper.make_node("MatMul", ["q", "kt"], ["s"]),
        helper.make_node("Softmax", ["s"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "q"], ["o"]),
        helper.make_node("Transpose", ["o"], ["ot"], perm=[1, 0, 2]),
        helper.make_node("Reshape", ["ot", "rows"], ["r"]),
        helper.make_node("Gemm", ["r", "wo", "bo"], ["g"], transB=1),
        helper.make_node("Shape", ["xt"], ["shp2"]),
        helper.make_node("Reshape", ["g", "shp2"], ["g3"]),
        helper.make_node("Transpose", ["g3"], ["y"], perm=[1, 0, 2]),
    ]
    inits = [_i64("one", [1]), _i64("heads", [H]), _i64("seq", [S]), _i64("hd", [d]), _i64("rows", [-1, E]),
             _init("wo", (E, E)), _init("bo", (E,))]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", S, E])],
               [helper.make_tensor_value_info("y", F, ["batch", S, E])], inits)
    _check(tmp_path, m, lambda b: [RNG.standard_normal((b, S, E)).astype(np.float32)])


def test_sequence_first_lstm_has_its_batch_on_axis_1(tmp_path):
    T, I, Hs = 5, 4, 6
    nodes = [
        helper.make_node("LSTM", ["x", "W", "R", "B"], ["Y", "Y_h"], hidden_size=Hs),
        helper.make_node("Tanh", ["Y_h"], ["h"]),
    ]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, [T, "batch", I])],
               [helper.make_tensor_value_info("Y", F, [T, 1, "batch", Hs]),
                helper.make_tensor_value_info("h", F, [1, "batch", Hs])],
               [_init("W", (1, 4 * Hs, I)), _init("R", (1, 4 * Hs, Hs)), _init("B", (1, 8 * Hs))])
    _check(tmp_path, m, lambda b: [RNG.standard_normal((T, b, I)).astype(np.float32)], batches=(1, 2, 7))


def test_two_batch_inputs_must_agree(tmp_path):
    nodes = [helper.make_node("Add", ["a", "b"], ["s"]), helper.make_node("MatMul", ["s", "w"], ["y"])]
    m = _model(nodes, [helper.make_tensor_value_info("a", F, ["n", 4]), helper.make_tensor_value_info("b", F, ["n", 4])],
               [helper.make_tensor_value_info("y", F, ["n", 3])], [_init("w", (4, 3))])
    fn = _check(tmp_path, m, lambda b: [RNG.standard_normal((b, 4)).astype(np.float32) for _ in range(2)])
    with pytest.raises(Exception) as e:
        fn(np.zeros((2, 4), np.float32), np.zeros((3, 4), np.float32))
    assert "batch dimension 'n'" in str(e.value)


def _refused(tmp_path, nodes, inits, out_shape, why, x_shape=("batch", 4, 6)):
    m = _model(nodes, [helper.make_tensor_value_info("x", F, list(x_shape))],
               [helper.make_tensor_value_info("y", F, list(out_shape))], inits)
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    with pytest.raises(Exception) as e:
        ireec.compile_file(str(path), target_backends=[_backend()])
    msg = str(e.value)
    assert "dynamic batch" in msg and why in msg, msg


def test_softmax_over_the_batch_is_refused(tmp_path):
    _refused(tmp_path, [helper.make_node("Softmax", ["x"], ["y"], axis=0, name="sm")], [], ["batch", 4, 6],
             "node 'sm' (Softmax) works along the batch axis")


def test_reduction_over_the_batch_is_refused(tmp_path):
    _refused(tmp_path, [helper.make_node("ReduceMean", ["x"], ["r"], axes=[0], keepdims=1, name="mean"),
                        helper.make_node("Sub", ["x", "r"], ["y"])],
             [], ["batch", 4, 6], "node 'mean' (ReduceMean) reduces over the batch axis")


def test_product_over_the_batch_is_refused(tmp_path):
    _refused(tmp_path, [helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0]),
                        helper.make_node("MatMul", ["xt", "x"], ["g"], name="gram"),
                        helper.make_node("MatMul", ["x", "g"], ["y"])],
             [], ["batch", 4], "node 'gram' (MatMul) contracts over the batch axis", x_shape=("batch", 4))


def test_training_batch_norm_is_refused(tmp_path):
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "b", "mu", "var"], ["y", "rm", "rv"],
                              training_mode=1, name="bn")]
    m = _model(nodes, [helper.make_tensor_value_info("x", F, ["batch", 4, 6])],
               [helper.make_tensor_value_info("y", F, ["batch", 4, 6])],
               [_init("s", (4,)), _init("b", (4,)), _init("mu", (4,)), numpy_helper.from_array(np.ones(4, np.float32), "var")],
               opset=15)
    path = tmp_path / "m.onnx"
    onnx.save(m, str(path))
    with pytest.raises(Exception) as e:
        ireec.compile_file(str(path), target_backends=[_backend()])
    assert "dynamic batch" in str(e.value) and "node 'bn' (BatchNormalization)" in str(e.value), str(e.value)


def test_slice_of_the_batch_is_refused(tmp_path):
    _refused(tmp_path, [helper.make_node("Slice", ["x", "st", "en", "ax"], ["h"], name="first"),
                        helper.make_node("Add", ["x", "h"], ["y"])],
             [_i64("st", [0]), _i64("en", [1]), _i64("ax", [0])], ["batch", 4, 6],
             "node 'first' (Slice) cuts or repeats along the batch axis")
