"""Generates tests/e2e/onnx_ops.mlir (run from the repository root): each case is one ONNX node run by
onnxruntime for the expected values, written as torch-onnx IR (the form
IREE's importer produces) with literal inputs and a check op."""
import numpy as np, onnx, onnxruntime as ort
from onnx import helper, TensorProto
rng = np.random.default_rng(6)
NP2ONNX = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64, "int32": TensorProto.INT32,
           "bool": TensorProto.BOOL, "uint8": TensorProto.UINT8, "int8": TensorProto.INT8}
TORCH = {"float32": "f32", "int64": "si64", "int32": "si32", "bool": "i1", "uint8": "ui8", "int8": "si8"}
MLIR = {"float32": "f32", "int64": "i64", "int32": "i32", "bool": "i1", "uint8": "i8", "int8": "i8"}

def r(*shape, lo=-2, hi=2):
    return np.round(rng.uniform(lo, hi, shape), 3).astype(np.float32)

def vt(a):
    return "!torch.vtensor<[%s],%s>" % (",".join(str(d) for d in a.shape), TORCH[a.dtype.name])

def tt(a, signless=True):
    return "tensor<%s%s>" % ("".join("%dx" % d for d in a.shape), MLIR[a.dtype.name] if signless else TORCH[a.dtype.name])

def dense(a, signless=True):
    t = a.dtype.name
    def fmt(x):
        if t == "float32":
            return "%.7e" % x
        if t == "bool":
            return "true" if x else "false"
        if t == "uint8" and signless:
            return str(int(x) if x < 128 else int(x) - 256)
        return str(int(x))
    if a.ndim == 0:
        body = fmt(a.item())
    else:
        def rec(x):
            if x.ndim == 1:
                return "[" + ", ".join(fmt(v) for v in x) + "]"
            return "[" + ", ".join(rec(v) for v in x) + "]"
        body = rec(a)
    return "dense<%s> : %s" % (body, tt(a, signless))

def attr(k, v):
    if isinstance(v, bool) or isinstance(v, int):
        return "torch.onnx.%s = %d : si64" % (k, int(v))
    if isinstance(v, float):
        return "torch.onnx.%s = %.7e : f32" % (k, v)
    if isinstance(v, str):
        return 'torch.onnx.%s = "%s"' % (k, v)
    if isinstance(v, list) and all(isinstance(x, str) for x in v):
        return "torch.onnx.%s = [%s]" % (k, ", ".join('"%s"' % x for x in v))
    if isinstance(v, list) and all(isinstance(x, int) for x in v):
        return "torch.onnx.%s = [%s]" % (k, ", ".join("%d : si64" % x for x in v))
    if isinstance(v, list):
        return "torch.onnx.%s = [%s]" % (k, ", ".join("%.7e : f32" % x for x in v))
    raise ValueError(v)

out = ["// gree's ONNX operator check tests (run by tests/python/test_e2e.py on",
       "// local-sync and local-task): torch-onnx IR as IREE's ONNX importer writes",
       "// it, one ONNX node per function on literal inputs. The expected values",
       "// were computed with onnxruntime 1.22 (ONNX's reference evaluator for", "// opset 23 ops) from the same node and inputs by", "// tests/e2e/gen_onnx_ops.py (which rewrites this file).", ""]

def case(name, op, inputs, attrs=None, opset=17, n_out=1, tol=None, comment=""):
    attrs = attrs or {}
    names = ["x%d" % i if a is not None else "" for i, a in enumerate(inputs)]
    vis = [helper.make_tensor_value_info(n, NP2ONNX[a.dtype.name], a.shape) for n, a in zip(names, inputs) if a is not None]
    outs = ["y%d" % i for i in range(n_out)]
    node = helper.make_node(op, names, outs, **attrs)
    g = helper.make_graph([node], name, vis, [helper.make_value_info(o, helper.TypeProto()) for o in outs])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    feeds = {n: a for n, a in zip(names, inputs) if a is not None}
    if opset > 22:
        # onnxruntime stops at opset 22; newer ops use ONNX's reference
        # evaluator.
        from onnx.reference import ReferenceEvaluator
        res = ReferenceEvaluator(m).run(None, feeds)
    else:
        sess = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
        res = sess.run(None, feeds)
    lines = []
    if comment:
        lines.append("// " + comment)
    lines.append("func.func @%s() attributes {torch.onnx_meta.opset_version = %d : si64} {" % (name, opset))
    args = []
    has_none = any(a is None for a in inputs)
    if has_none:
        lines.append("  %none = torch.constant.none")
    for i, a in enumerate(inputs):
        if a is None:
            args.append(("%none", "!torch.none"))
            continue
        lines.append("  %%x%d = torch.vtensor.literal(%s) : %s" % (i, dense(a, signless=False), vt(a)))
        args.append(("%%x%d" % i, vt(a)))
    rtys = [vt(y) for y in res]
    ad = ", ".join(attr(k, v) for k, v in attrs.items())
    resnames = ", ".join("%%y%d" % i for i in range(n_out)) if n_out > 1 else "%y0"
    if n_out > 1:
        lhs = "%%y:%d" % n_out
    else:
        lhs = "%y0"
    lines.append('  %s = torch.operator "onnx.%s"(%s)%s : (%s) -> %s' % (
        lhs, op, ", ".join(a for a, _ in args), " {" + ad + "}" if ad else "",
        ", ".join(t for _, t in args), rtys[0] if n_out == 1 else "(" + ", ".join(rtys) + ")"))
    for i, y in enumerate(res):
        ref = "%y0" if n_out == 1 else "%%y#%d" % i
        lines.append("  %%r%d = torch_c.to_builtin_tensor %s : %s -> %s" % (i, ref, vt(y), tt(y)))
        if y.dtype == np.float32:
            lines.append("  check.expect_almost_eq_const(%%r%d, %s%s) : %s" % (i, dense(y), "", tt(y)) if tol is None else
                         "  check.expect_almost_eq_const(%%r%d, %s, atol %s) : %s" % (i, dense(y), tol, tt(y)))
        else:
            lines.append("  check.expect_eq_const(%%r%d, %s) : %s" % (i, dense(y), tt(y)))
    lines.append("  return")
    lines.append("}")
    lines.append("")
    out.extend(lines)

x = r(1, 2, 6, 5)
case("conv_pads_strides_bias", "Conv", [x, r(3, 2, 3, 3), r(3)], {"pads": [1, 0, 2, 1], "strides": [2, 1]}, comment="Conv: asymmetric pads, strides, bias.")
case("conv_groups_dilations", "Conv", [r(1, 4, 7, 7), r(4, 2, 2, 2)], {"group": 2, "dilations": [2, 1], "pads": [1, 0, 1, 1]}, comment="Conv: 2 groups, dilation, pads.")
case("conv_same_lower", "Conv", [r(1, 2, 6, 5), r(2, 2, 3, 2)], {"auto_pad": "SAME_LOWER", "strides": [2, 2]}, comment="Conv: SAME_LOWER auto_pad with strides.")
case("conv_depthwise_1d", "Conv", [r(2, 3, 9), r(3, 1, 3), r(3)], {"group": 3, "pads": [1, 1]}, comment="Depthwise 1-D Conv.")
case("conv_transpose_strided", "ConvTranspose", [r(1, 2, 3, 3), r(2, 3, 3, 3)], {"strides": [2, 2], "pads": [1, 1, 1, 1], "output_padding": [1, 1]}, comment="ConvTranspose: strides, pads, output_padding.")
case("maxpool_ceil_pads", "MaxPool", [r(1, 2, 5, 5)], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1}, comment="MaxPool: ceil_mode with pads.")
case("avgpool_count_include_pad", "AveragePool", [r(1, 1, 5, 4)], {"kernel_shape": [3, 2], "strides": [2, 1], "pads": [1, 0, 1, 1], "count_include_pad": 1})
case("avgpool_exclude_pad_ceil", "AveragePool", [r(1, 2, 4, 4)], {"kernel_shape": [3, 3], "strides": [2, 2], "pads": [1, 1, 1, 1], "ceil_mode": 1})
case("global_average_pool", "GlobalAveragePool", [r(2, 3, 4, 5)])
case("batchnorm_inference", "BatchNormalization", [r(2, 3, 2, 2), r(3), r(3), r(3), r(3, lo=0.5, hi=2)], {"epsilon": 1e-3})
case("gemm_trans_alpha_beta", "Gemm", [r(4, 3), r(5, 4), r(1, 5)], {"transA": 1, "transB": 1, "alpha": 0.5, "beta": 2.0})
case("matmul_batched_broadcast", "MatMul", [r(2, 1, 3, 4), r(3, 4, 2)])
case("matmul_vector", "MatMul", [r(4), r(2, 4, 3)])
case("add_broadcast", "Add", [r(2, 3, 4), r(3, 1)])
case("div_int_unsigned", "Div", [np.array([200, 255, 17, 9], np.uint8), np.array([3, 2, 5, 2], np.uint8)], comment="Unsigned integer division (ui8 stays unsigned).")
case("pow_broadcast", "Pow", [r(2, 3, lo=0.5, hi=3), r(3, lo=-1, hi=2)])
case("where_compare", "Where", [np.array([[True, False, True], [False, False, True]]), r(2, 3), r(1, 3)])
case("less_int", "Less", [np.array([1, -5, 7, 3], np.int64), np.array([2, -6, 7, 10], np.int64)])
for act, at in [("Relu", {}), ("LeakyRelu", {"alpha": 0.2}), ("Elu", {"alpha": 1.5}), ("Selu", {}), ("HardSigmoid", {}),
                ("HardSwish", {}), ("Softplus", {}), ("Softsign", {}), ("Sigmoid", {}), ("Tanh", {}), ("Erf", {})]:
    case("act_" + act.lower(), act, [r(2, 5, lo=-4, hi=4)], at)
case("gelu_tanh", "Gelu", [r(2, 5, lo=-4, hi=4)], {"approximate": "tanh"}, opset=20)
case("clip_inputs", "Clip", [r(3, 4), np.array(-0.5, np.float32), np.array(1.25, np.float32)])
case("cast_float_to_uint8", "Cast", [np.array([0.4, 1.6, 200.7, 254.2], np.float32)], {"to": TensorProto.UINT8})
case("reshape_zero_minus_one", "Reshape", [r(2, 3, 4), np.array([0, -1, 2], np.int64)])
case("transpose_perm", "Transpose", [r(2, 3, 4)], {"perm": [2, 0, 1]})
case("concat_axis1", "Concat", [r(2, 1, 3), r(2, 3, 3)], {"axis": 1})
case("split_uneven", "Split", [r(7, 2), np.array([2, 5], np.int64)], {"axis": 0}, opset=18, n_out=2)
case("slice_negative_steps", "Slice", [r(5, 6), np.array([-1, 1], np.int64), np.array([-6, 6], np.int64), np.array([0, 1], np.int64), np.array([-2, 2], np.int64)])
case("gather_axis1", "Gather", [r(3, 4), np.array([[3, -1], [0, 2]], np.int64)], {"axis": 1})
case("pad_reflect", "Pad", [r(3, 4), np.array([1, 2, 1, 0], np.int64)], {"mode": "reflect"})
case("softmax_axis1", "Softmax", [r(2, 3, 4, lo=-3, hi=3)], {"axis": 1})
case("logsoftmax_opset11_flatten", "LogSoftmax", [r(2, 3, 4, lo=-3, hi=3)], {"axis": 1}, opset=11, comment="LogSoftmax before opset 13 flattens the trailing dimensions.")
case("reduce_mean_axes_input", "ReduceMean", [r(2, 3, 4), np.array([0, -1], np.int64)], {"keepdims": 0}, opset=18)
case("reduce_l2_keepdims", "ReduceL2", [r(2, 3, 4), np.array([1], np.int64)], opset=18)
case("reduce_logsumexp", "ReduceLogSumExp", [r(2, 3, 4, lo=-5, hi=5)], {"axes": [2]}, opset=13)
case("argmax_last_index", "ArgMax", [np.array([[1, 5, 5, 2], [7, 0, 7, 7]], np.float32)], {"axis": 1, "select_last_index": 1})
case("layer_norm", "LayerNormalization", [r(2, 3, 4), r(4), r(4)], {"axis": -1, "epsilon": 1e-5})
case("instance_norm", "InstanceNormalization", [r(2, 3, 5), r(3), r(3)])
case("expand_tile", "Expand", [r(3, 1), np.array([2, 3, 4], np.int64)])
case("cumsum_reverse_exclusive", "CumSum", [r(3, 4), np.array(1, np.int64)], {"reverse": 1, "exclusive": 1})
case("topk_largest", "TopK", [r(3, 5), np.array([2], np.int64)], {"axis": 1}, n_out=2)
case("einsum_batch_matmul", "Einsum", [r(2, 3, 4), r(2, 4, 5)], {"equation": "bij,bjk->bik"})
case("resize_linear_half_pixel", "Resize", [r(1, 1, 2, 3), None, np.array([1, 1, 2, 1.5], np.float32)], {"mode": "linear"}, opset=13)
case("resize_nearest_asymmetric", "Resize", [r(1, 1, 2, 2), None, np.array([1, 1, 2, 3], np.float32)], {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}, opset=13)
case("dequantize_per_axis", "DequantizeLinear", [np.array([[0, 128, 255], [10, 20, 30]], np.uint8), np.array([0.5, 0.25], np.float32), np.array([128, 10], np.uint8)], {"axis": 0})
case("quantize_saturate", "QuantizeLinear", [np.array([-300.0, -1.5, 0.5, 2.5, 300.0], np.float32), np.array(0.5, np.float32), np.array(-3, np.int8)])
case("gather_elements", "GatherElements", [r(3, 3), np.array([[1, 2, 0], [2, 0, 0]], np.int64)], {"axis": 0})
case("scatter_nd_add", "ScatterND", [r(4, 3), np.array([[1], [3], [1]], np.int64), r(3, 3)], {"reduction": "add"}, opset=16)
case("qlinear_matmul_uint8", "QLinearMatMul", [np.array([[208, 236, 0, 238], [3, 214, 255, 29]], np.uint8), np.array(0.0066, np.float32), np.array(113, np.uint8),
     np.array([[152, 51, 244], [60, 26, 255], [0, 127, 246], [127, 254, 247]], np.uint8), np.array(0.00705, np.float32), np.array(114, np.uint8),
     np.array(0.0107, np.float32), np.array(118, np.uint8)], opset=10)
case("attention_gqa_causal", "Attention", [r(1, 4, 3, 8), r(1, 2, 5, 8), r(1, 2, 5, 6)], {"is_causal": 1}, opset=23, comment="Attention: grouped query heads (4 query, 2 kv), causal mask.")
case("attention_3d_mask_softcap", "Attention", [r(2, 3, 8), r(2, 4, 8), r(2, 4, 8), r(3, 4)], {"q_num_heads": 2, "kv_num_heads": 2, "softcap": 2.0}, opset=23, comment="Attention: 3-D inputs, additive mask, softcap.")
case("rotary_interleaved", "RotaryEmbedding", [r(1, 2, 3, 8), r(4, 4), r(4, 4), np.array([[0, 2, 3]], np.int64)], {"interleaved": 1}, opset=23)
case("group_norm", "GroupNormalization", [r(2, 4, 3), r(4), r(4)], {"num_groups": 2}, opset=21)
case("rms_norm", "RMSNormalization", [r(2, 3, 4), r(4)], {"axis": -1}, opset=23)
case("lstm_bidirectional_seq_lens", "LSTM", [r(4, 2, 3), r(2, 16, 3), r(2, 16, 4), r(2, 32), np.array([4, 2], np.int32), r(2, 2, 4), r(2, 2, 4), r(2, 12)],
     {"hidden_size": 4, "direction": "bidirectional"}, n_out=3, comment="LSTM: bidirectional, sequence_lens, initial states, peepholes.")
case("gru_reverse_linear_before_reset", "GRU", [r(3, 2, 3), r(1, 12, 3), r(1, 12, 4), r(1, 24)], {"hidden_size": 4, "direction": "reverse", "linear_before_reset": 1}, n_out=2)
case("rnn_relu", "RNN", [r(3, 2, 3), r(1, 4, 3), r(1, 4, 4), r(1, 8)], {"hidden_size": 4, "activations": ["Relu"]}, n_out=2)
case("dft_complex_axis1", "DFT", [r(2, 5, 3, 2), None, np.array(1, np.int64)], opset=20, comment="DFT of complex input along axis 1 (direct transform).")
case("dft_rfft_length", "DFT", [r(2, 6, 1), np.array(8, np.int64)], {"onesided": 1}, opset=20, comment="One-sided DFT of a real signal zero-padded to dft_length 8.")
case("conv_grouped_taps_bias", "Conv", [r(1, 8, 6, 5), r(8, 4, 3, 3), r(8)], {"group": 2, "pads": [1, 1, 1, 1]}, comment="Grouped Conv with unit strides (groups of 4 channels: one product per tap and group), bias.")
case("conv_grouped_strided_bias", "Conv", [r(1, 12, 7, 7), r(6, 4, 3, 3), r(6)], {"group": 3, "pads": [1, 1, 1, 1], "strides": [2, 2]}, comment="Grouped Conv with strides (per-group windows and products), bias.")
open("tests/e2e/onnx_ops.mlir", "w").write("\n".join(out))
print(len([l for l in out if l.startswith("func.func")]), "cases")
