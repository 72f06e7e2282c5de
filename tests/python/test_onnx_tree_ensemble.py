"""ai.onnx.ml TreeEnsemble (opset 5) compiled by gree from the .onnx file
and compared with onnx's reference evaluator: a forest of three trees over
four features with every comparison mode (LEQ, LT, GTE, GT, EQ, NEQ,
MEMBER), NaN inputs routed by nodes_missing_value_tracks_true, a tree that
is a single leaf, leaves for several targets, and each aggregation (SUM,
AVERAGE, MIN, MAX); post transforms other than NONE are refused.
"""

import numpy as np
import pytest

onnx = pytest.importorskip("onnx", reason="the onnx package is not installed")

from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import iree_go.compiler as ireec  # noqa: E402
import iree_go.runtime as ireert  # noqa: E402

# Tree 0: nodes 0-2; tree 1: nodes 3-5; tree 2: node 6, a single leaf.
NODES = dict(
    modes=[0, 6, 3, 1, 5, 2, 0],
    features=[0, 1, 2, 3, 0, 1, 0],
    splits=[0.5, np.nan, -1.0, 2.0, 3.0, 0.25, 0.0],
    true_ids=[1, 0, 2, 4, 2, 5, 7],
    true_leaf=[0, 1, 1, 0, 1, 1, 1],
    false_ids=[2, 1, 3, 5, 3, 6, 7],
    false_leaf=[0, 1, 1, 0, 1, 1, 1],
    missing_true=[1, 0, 0, 0, 1, 0, 0],
)
LEAF_WEIGHTS = [1.0, 10.0, 100.0, 1000.0, -2.0, 3.5, 7.0, -0.25, 8.0]
LEAF_TARGETS = [0, 1, 2, 0, 1, 2, 0, 1, 2]
MEMBERS = [1.5, 4.0, 9.0, np.nan]


def _model(aggregate, post_transform=0):
    node = helper.make_node(
        "TreeEnsemble", ["X"], ["Y"], domain="ai.onnx.ml",
        nodes_modes=numpy_helper.from_array(np.array(NODES["modes"], np.uint8)),
        nodes_featureids=NODES["features"],
        nodes_splits=numpy_helper.from_array(np.array(NODES["splits"], np.float32)),
        nodes_truenodeids=NODES["true_ids"], nodes_trueleafs=NODES["true_leaf"],
        nodes_falsenodeids=NODES["false_ids"], nodes_falseleafs=NODES["false_leaf"],
        nodes_missing_value_tracks_true=NODES["missing_true"],
        membership_values=numpy_helper.from_array(np.array(MEMBERS, np.float32)),
        leaf_weights=numpy_helper.from_array(np.array(LEAF_WEIGHTS, np.float32)),
        leaf_targetids=LEAF_TARGETS, tree_roots=[0, 3, 6], n_targets=3,
        aggregate_function=aggregate, post_transform=post_transform)
    g = helper.make_graph([node], "forest", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [8, 4])],
                          [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [8, 3])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 5)])


def _load(model, tmp_path, backend):
    path = str(tmp_path / "m.onnx")
    onnx.save(model, path)
    vmfb = ireec.compile_file(path, target_backends=[backend])
    ctx = ireert.SystemContext(config=ireert.Config("local-task"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    return ctx.modules.module[model.graph.name]


X = np.array([
    [0.2, 4.0, 0.0, 1.0], [0.7, 1.5, -3.0, 2.5], [np.nan, 9.0, 5.0, np.nan], [0.5, 2.0, -1.0, 2.0],
    [3.0, 0.25, 1.0, -4.0], [-1.0, 0.3, np.nan, 1.99], [0.6, 4.0, -0.5, 10.0], [0.4, 7.0, 2.0, 0.0],
], np.float32)


@pytest.mark.parametrize("backend", ["vmvx", "llvm-cpu"])
@pytest.mark.parametrize("aggregate", [0, 1, 2, 3])
def test_tree_ensemble(aggregate, backend, tmp_path):
    from onnx.reference import ReferenceEvaluator
    m = _model(aggregate)
    got = np.asarray(_load(m, tmp_path, backend)(X).to_host())
    (want,) = ReferenceEvaluator(m).run(None, {"X": X})
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_tree_ensemble_post_transform_refused(tmp_path):
    with pytest.raises(Exception, match="post_transform 1"):
        _load(_model(1, post_transform=1), tmp_path, "vmvx")
