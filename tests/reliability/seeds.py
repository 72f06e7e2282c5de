"""The inputs the suite mutates: MLIR programs (linalg, tensor, control flow,
StableHLO, TOSA) cut from tests/e2e's check programs one function at a time,
the modules those compile to (llvm-cpu and vmvx), and small ONNX models
built with onnx.helper. Every seed program takes no arguments (its checks
are check.expect_* ops), so anything a mutation leaves runnable is run the
same way: every exported function called with no arguments."""

import os
import re

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
E2E = os.path.join(REPO, "tests", "e2e")

# The e2e files whose functions are MLIR seeds, by input dialect.
MLIR_FILES = {
    "linalg": ["linalg.mlir", "elementwise.mlir", "tensor_ops.mlir", "control.mlir", "more_ops.mlir",
               "linalg_ext.mlir"],
    "stablehlo": ["stablehlo_basic.mlir", "stablehlo_misc.mlir", "stablehlo_indexing.mlir",
                  "stablehlo_control.mlir", "stablehlo_chlo.mlir"],
    "tosa": ["tosa_ops.mlir"],
}

# Functions compiled into the module seeds, a few per dialect (small ones:
# the llvm-cpu compile is the slow part of setting up).
VMFB_PER_FILE = 2


def split_functions(src):
    """The top-level func.func blocks of src, each with the file's other
    top-level lines (aliases, globals) in front."""
    lines = src.split("\n")
    prelude, funcs, cur = [], [], None
    for line in lines:
        if cur is None and line.startswith("func.func"):
            cur = [line]
        elif cur is not None:
            cur.append(line)
            if line.startswith("}"):
                funcs.append(cur)
                cur = None
        elif line.strip() and not line.startswith("//"):
            prelude.append(line)
    head = "\n".join(prelude)
    return [(head + "\n" if head else "") + "\n".join(f) + "\n" for f in funcs]


def mlir_seeds():
    """[(dialect, name, source bytes)] for every seed function."""
    out = []
    for dialect, files in MLIR_FILES.items():
        for name in files:
            with open(os.path.join(E2E, name)) as f:
                for i, fn in enumerate(split_functions(f.read())):
                    m = re.search(r"func\.func @([\w.$-]+)", fn)
                    out.append((dialect, f"{name}:{m.group(1) if m else i}", fn.encode()))
    return out


def vmfb_seeds(backends, log=print):
    """[(backend, name, module bytes)]: a few seed functions per file
    compiled for each available backend, plus samples/simple_mul (a
    function with arguments)."""
    import iree_go.compiler as ireec

    picked, per_file = [], {}
    for dialect, name, src in mlir_seeds():
        f = name.split(":")[0]
        if per_file.get(f, 0) < VMFB_PER_FILE and len(src) < 3000:
            per_file[f] = per_file.get(f, 0) + 1
            picked.append((name, src))
    with open(os.path.join(REPO, "samples", "simple_mul.mlir"), "rb") as f:
        picked.append(("simple_mul.mlir", f.read()))
    out = []
    for backend in backends:
        for name, src in picked:
            try:
                out.append((backend, name, ireec.compile_str(src, target_backends=[backend])))
            except Exception as e:  # noqa: BLE001 - a seed that does not compile is left out
                log(f"  seed {name} does not compile for {backend}: {str(e).splitlines()[0][:120]}")
    return out


def onnx_seeds():
    """[(name, model bytes)]: small models of common ops; [] without onnx."""
    try:
        import numpy as np
        from onnx import TensorProto, helper, numpy_helper
    except ImportError:
        return []
    F = TensorProto.FLOAT

    def model(name, nodes, inputs, outputs, inits=(), opset=17):
        g = helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, t, s) for n, t, s in inputs],
                              [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs],
                              [numpy_helper.from_array(a, n) for n, a in inits])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
        m.ir_version = 8
        return name, m.SerializeToString()

    w = np.arange(12, dtype=np.float32).reshape(3, 4) / 10
    k = np.ones((2, 1, 3, 3), np.float32) / 9
    return [
        model("relu", [helper.make_node("Relu", ["x"], ["y"])], [("x", F, [2, 3])], [("y", F, [2, 3])]),
        model("add_bcast", [helper.make_node("Add", ["x", "b"], ["y"])], [("x", F, [2, 3]), ("b", F, [3])],
              [("y", F, [2, 3])]),
        model("gemm", [helper.make_node("Gemm", ["x", "w", "c"], ["y"], transB=1, alpha=0.5)],
              [("x", F, [2, 4])], [("y", F, [2, 3])], [("w", w), ("c", np.ones(3, np.float32))]),
        model("conv", [helper.make_node("Conv", ["x", "k"], ["y"], pads=[1, 1, 1, 1], strides=[1, 1])],
              [("x", F, [1, 1, 5, 5])], [("y", F, [1, 2, 5, 5])], [("k", k)]),
        model("reshape", [helper.make_node("Reshape", ["x", "s"], ["y"])], [("x", F, [2, 6])], [("y", F, [3, 4])],
              [("s", np.array([3, 4], np.int64))]),
        model("softmax_sum", [helper.make_node("Softmax", ["x"], ["s"], axis=-1),
                              helper.make_node("ReduceSum", ["s", "ax"], ["y"], keepdims=0)],
              [("x", F, [2, 5])], [("y", F, [2])], [("ax", np.array([1], np.int64))]),
        model("gather", [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)], [("x", F, [4, 3])],
              [("y", F, [2, 3])], [("i", np.array([3, 0], np.int64))]),
        model("slice_concat", [helper.make_node("Slice", ["x", "st", "en"], ["s"]),
                               helper.make_node("Concat", ["s", "s"], ["y"], axis=1)],
              [("x", F, [2, 6])], [("y", F, [2, 4])],
              [("st", np.array([1], np.int64)), ("en", np.array([3], np.int64))]),
        model("transpose_matmul", [helper.make_node("Transpose", ["x"], ["t"], perm=[1, 0]),
                                   helper.make_node("MatMul", ["t", "x"], ["y"])],
              [("x", F, [3, 2])], [("y", F, [2, 2])]),
        model("pool_clip", [helper.make_node("MaxPool", ["x"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
                            helper.make_node("Clip", ["p", "lo", "hi"], ["y"])],
              [("x", F, [1, 1, 4, 4])], [("y", F, [1, 1, 2, 2])],
              [("lo", np.array(0, np.float32)), ("hi", np.array(6, np.float32))]),
    ]


def export_mobilenet(work, log=print):
    """torchvision's MobileNetV2 exported to ONNX (opset 17) in work by a
    Python that has torch and torchvision ($GREE_TORCH_PYTHON, the system's
    python3); None where none has."""
    import subprocess
    import sys

    for py in (os.environ.get("GREE_TORCH_PYTHON"), "/usr/bin/python3", sys.executable):
        if not py or not os.path.exists(py):
            continue
        if subprocess.run([py, "-c", "import torch, torchvision"], capture_output=True).returncode:
            continue
        path = os.path.join(work, "mobilenet_v2.onnx")
        r = subprocess.run([py, os.path.join(REPO, "tests", "onnx", "export_mobilenet_v2.py"), path, "--opset", "17"],
                           capture_output=True, text=True)
        if r.returncode == 0:
            return path
        log(f"  MobileNetV2 export failed: {r.stderr.strip().splitlines()[-1:] or r.returncode}")
    return None
