"""The input and recurrent biases of ONNX RNN, GRU and LSTM layers: their
sum Wb + Rb (Wb alone for a GRU's h gate with linear_before_reset) is
added to the input projection X·Wᵀ by the product's epilogue, one [G]
vector folded at compile time when the biases are a constant. Against
onnxruntime on vmvx and llvm-cpu: LSTM, GRU with and without
linear_before_reset (whose h-gate Rb must stay out of the folded sum),
RNN, a bidirectional layer (direction 1's biases) and biases given as a
graph input (summed at run time). The input IR must hold the folded
vector for constant biases, so a silent fallback fails the test. A layer
of 128 units (its step's product shared by two workgroups on llvm-cpu,
forward in merged steps: codegen's mergedStep; the reverse direction's
steps insert at S-1-t and stay unmerged) runs bidirectional and GRU."""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")
ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

S, I = 12, 24

# name: (op, gates, directions, extra attributes, biases constant, hidden size)
CASES = {
    "lstm": ("LSTM", 4, 1, {}, True, 32),
    "gru": ("GRU", 3, 1, {}, True, 32),
    "gru_linear_before_reset": ("GRU", 3, 1, {"linear_before_reset": 1}, True, 32),
    "rnn": ("RNN", 1, 1, {}, True, 32),
    "lstm_bidirectional": ("LSTM", 4, 2, {"direction": "bidirectional"}, True, 32),
    "gru_lbr_bias_input": ("GRU", 3, 1, {"linear_before_reset": 1}, False, 32),
    "lstm_128_bidirectional_merged": ("LSTM", 4, 2, {"direction": "bidirectional"}, True, 128),
    "gru_128_lbr_merged": ("GRU", 3, 1, {"linear_before_reset": 1}, True, 128),
}


def _model(name, op, gates, dirs, attrs, const_bias, H):
    B = 1 if H == 128 else 2  # the merged steps' state is one row
    rng = np.random.default_rng(sum(map(ord, name)))
    G = gates * H
    w = (rng.standard_normal((dirs, G, I)) / np.sqrt(I)).astype(np.float32)
    r = (rng.standard_normal((dirs, G, H)) / np.sqrt(H)).astype(np.float32)
    # Large, distinct biases: a dropped or doubled one moves every output.
    bias = rng.uniform(-1.5, 1.5, (dirs, 2 * G)).astype(np.float32)
    x = rng.standard_normal((S, B, I)).astype(np.float32)
    inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(r, "r")]
    graph_ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [S, B, I])]
    feeds = {"x": x}
    if const_bias:
        inits.append(numpy_helper.from_array(bias, "b"))
    else:
        graph_ins.append(helper.make_tensor_value_info("b", TensorProto.FLOAT, [dirs, 2 * G]))
        feeds["b"] = bias
    node = helper.make_node(op, ["x", "w", "r", "b"], ["y", "yh"], hidden_size=H, **attrs)
    g = helper.make_graph([node], "rnnb_" + name, graph_ins,
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [S, dirs, B, H]),
                           helper.make_tensor_value_info("yh", TensorProto.FLOAT, [dirs, B, H])], inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    return model, feeds, bias


def _backends():
    have = ireec.query_available_targets()
    return [b for b in ("vmvx", "llvm-cpu") if b in have]


@pytest.mark.parametrize("backend", _backends())
@pytest.mark.parametrize("name", sorted(CASES))
def test_rnn_biases_match_onnxruntime(name, backend, tmp_path):
    op, gates, dirs, attrs, const_bias, _ = CASES[name]
    model, feeds, bias = _model(name, *CASES[name])
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    want = ort.InferenceSession(path, providers=["CPUExecutionProvider"]).run(None, feeds)
    ir = ireec.compile_file(path, target_backends=[backend], extra_args=["--compile-to=input"])
    ir = ir.decode() if isinstance(ir, bytes) else ir
    # One folded [G] vector per direction for constant biases.
    folded = ir.count(f"dense_resource<__gree_rnn_bias") >= dirs
    assert folded == const_bias, f"folded bias vectors in the input IR: {folded}"
    dump = tmp_path / "kir"
    vmfb = ireec.compile_file(path, target_backends=[backend],
                              extra_args=[f"--iree-hal-dump-executable-sources-to={dump}"])
    if backend == "llvm-cpu" and CASES[name][5] == 128:
        # The forward layer's kernel runs merged steps: ticket 0 and one
        # phase per step, each a claim and a completion (6 unmerged).
        counts = sorted(f.read_text().count("fetch_add") for f in dump.glob("*.kir"))
        assert 4 in counts, f"FetchAdds per cooperative kernel: {[c for c in counts if c]}"
    drivers = ("local-sync", "local-task") if backend == "llvm-cpu" else ("local-task",)
    for driver in drivers:
        m = ireert.load_vm_flatbuffer(vmfb, driver=driver)
        got = getattr(m, model.graph.name)(*feeds.values())
        for g, w in zip(got, want):
            g = np.asarray(g.to_host())
            assert g.shape == w.shape
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=2e-6)
