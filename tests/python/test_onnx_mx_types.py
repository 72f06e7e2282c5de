"""ONNX's microscaling (MX) element types in model signatures, and small op
forms. Cast to FLOAT8E8M0 (the MX scale type) with each round_mode and
saturate, compiled by gree from the .onnx file and compared bit for bit
with onnx's reference implementation (onnx.numpy_helper.to_float8e8m0):
zero and f32 subnormals, negative values (the sign is ignored), the
exponent 0xFE boundary, infinities and NaN. QuantizeLinear to FLOAT4E2M1
and back against onnx's reference evaluator. Also a Dropout in training
mode whose ratio is 0 at run time (identity, all-true mask) and one whose
ratio is not (a run-time error, not random output), and opset 8's batched
Scan with a batch of one.
"""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

VALUES = np.array([
    0.0, -0.0, 1e-45, 2.0**-127, 1.4 * 2.0**-127, 1.5 * 2.0**-127, 1.7 * 2.0**-127,
    2.0**-126, 0.124, 0.25, 0.375, 0.376, 0.5, 1.1, 1.5, 1.75, 2.0, -3.0, -0.7,
    3.0e38, 2.0**127, 1.5 * 2.0**127, 1.0001 * 2.0**127, np.finfo(np.float32).max,
    np.inf, -np.inf, np.nan, 1234.5678,
], dtype=np.float32)


def _load(model, tmp_path, backend="vmvx"):
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    vmfb = ireec.compile_file(path, target_backends=[backend])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    return ctx.modules.module[model.graph.name]


def _cast_model(src, round_mode, saturate):
    node = helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT8E8M0,
                            round_mode=round_mode, saturate=saturate)
    g = helper.make_graph([node], "cast_e8m0",
                          [helper.make_tensor_value_info("x", src, [len(VALUES)])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT8E8M0, [len(VALUES)])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 25)])


@pytest.mark.parametrize("backend", ["vmvx", "llvm-cpu"])
@pytest.mark.parametrize("saturate", [1, 0])
@pytest.mark.parametrize("round_mode", ["up", "down", "nearest"])
def test_cast_f32_to_e8m0(round_mode, saturate, backend, tmp_path):
    fn = _load(_cast_model(TensorProto.FLOAT, round_mode, saturate), tmp_path, backend)
    got = np.asarray(fn(VALUES).to_host())
    want = numpy_helper.to_float8e8m0(VALUES, bool(saturate), round_mode)
    assert got.view(np.uint8).tolist() == want.view(np.uint8).tolist()


def test_cast_f16_to_e8m0_nearest(tmp_path):
    x = VALUES[np.abs(VALUES) < 60000].astype(np.float16)
    m = _cast_model(TensorProto.FLOAT16, "nearest", 1)
    m.graph.input[0].type.tensor_type.shape.dim[0].dim_value = len(x)
    m.graph.output[0].type.tensor_type.shape.dim[0].dim_value = len(x)
    got = np.asarray(_load(m, tmp_path)(x).to_host())
    want = numpy_helper.to_float8e8m0(x, True, "nearest")
    assert got.view(np.uint8).tolist() == want.view(np.uint8).tolist()


def test_cast_e8m0_bad_round_mode(tmp_path):
    with pytest.raises(Exception, match="round_mode 'zero'"):
        _load(_cast_model(TensorProto.FLOAT, "zero", 1), tmp_path)


def _dropout_model():
    node = helper.make_node("Dropout", ["x", "r", "t"], ["y", "z"], seed=0)
    g = helper.make_graph([node], "dropout_train",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                           helper.make_tensor_value_info("r", TensorProto.FLOAT, []),
                           helper.make_tensor_value_info("t", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3]),
                           helper.make_tensor_value_info("z", TensorProto.BOOL, [2, 3])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 22)])


def test_training_dropout_runtime_ratio(tmp_path):
    fn = _load(_dropout_model(), tmp_path)
    x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    for r, t in [(0.0, True), (0.5, False), (0.0, False)]:
        y, z = fn(x, np.array(r, np.float32), np.array(t))
        np.testing.assert_array_equal(np.asarray(y.to_host()), x)
        assert np.asarray(z.to_host()).all()
    with pytest.raises(Exception, match="ratio"):
        fn(x, np.array(0.25, np.float32), np.array(True))


@pytest.mark.parametrize("backend", ["vmvx", "llvm-cpu"])
def test_quantize_to_f4e2m1_and_back(backend, tmp_path):
    # QuantizeLinear to FLOAT4E2M1 (ties to even, saturating at +-6), then
    # DequantizeLinear, both against onnx's reference evaluator.
    from onnx.reference import ReferenceEvaluator
    x = np.array([0.0, 0.3, -0.75, 1.25, 2.5, 5.0, -5.0, 7.0, 100.0, -1e9, 0.1, 2.9], np.float32)
    init = [numpy_helper.from_array(np.array(0.5, np.float32), "s")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s"], ["q"], output_dtype=TensorProto.FLOAT4E2M1),
             helper.make_node("DequantizeLinear", ["q", "s"], ["y"])]
    g = helper.make_graph(nodes, "q_f4", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [len(x)])],
                          [helper.make_tensor_value_info("q", TensorProto.FLOAT4E2M1, [len(x)]),
                           helper.make_tensor_value_info("y", TensorProto.FLOAT, [len(x)])], init)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 25)])
    q, y = _load(m, tmp_path, backend)(x)
    wq, wy = ReferenceEvaluator(m).run(None, {"x": x})
    assert np.asarray(q.to_host()).astype(np.float32).tolist() == wq.astype(np.float32).tolist()
    np.testing.assert_array_equal(np.asarray(y.to_host()), wy)


def _scan8_model(batch, directions):
    body = helper.make_graph(
        [helper.make_node("Mul", ["s_in", "x_t"], ["s_out"]),
         helper.make_node("Sub", ["s_out", "x_t"], ["y_t"])], "body",
        [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("x_t", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("y_t", TensorProto.FLOAT, [2])])
    node = helper.make_node("Scan", ["", "s0", "x"], ["s", "y"], body=body, num_scan_inputs=1,
                            directions=directions)
    g = helper.make_graph([node], "scan8",
                          [helper.make_tensor_value_info("s0", TensorProto.FLOAT, [batch, 2]),
                           helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 4, 2])],
                          [helper.make_tensor_value_info("s", TensorProto.FLOAT, [batch, 2]),
                           helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, 4, 2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 8)])


@pytest.mark.parametrize("direction", [0, 1])
def test_scan_opset8_batch_one(direction, tmp_path):
    # Opset 8's batched Scan (scan along dimension 1, attribute directions;
    # scan outputs in iteration order) against a numpy loop (onnx's
    # reference evaluator has no opset-8 Scan).
    m = _scan8_model(1, [direction])
    s0 = np.array([[1.0, -2.0]], np.float32)
    x = (np.arange(8, dtype=np.float32).reshape(1, 4, 2) - 3) / 2
    s, y = _load(m, tmp_path)(s0, x)
    ws, wy = s0[0].copy(), []
    for t in (range(3, -1, -1) if direction else range(4)):
        ws = ws * x[0, t]
        wy.append(ws - x[0, t])
    ws, wy = ws[None], np.stack(wy)[None]
    np.testing.assert_allclose(np.asarray(s.to_host()), ws, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(y.to_host()), wy, rtol=1e-6)


def test_scan_opset8_batch_two_refused(tmp_path):
    with pytest.raises(Exception, match="batch size 1"):
        _load(_scan8_model(2, [0]), tmp_path)
