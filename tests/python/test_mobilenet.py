"""MobileNetV2 end to end (issue 6): torchvision's model, exported to ONNX,
compiled by gree straight from the .onnx file, run on local-task, and
compared with onnxruntime on the same input.

The export needs a Python with torch and torchvision (Debian's CPU builds:
`apt-get install python3-torchvision`, used through /usr/bin/python3, which
.ci/run installs); the test skips with the reason where they are missing.
"""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, "..", "onnx", "export_mobilenet_v2.py")


def _torch_python():
    """A Python interpreter that can import torch and torchvision, or None."""
    for py in (os.environ.get("GREE_TORCH_PYTHON"), "/usr/bin/python3", sys.executable):
        if not py or not os.path.exists(py):
            continue
        r = subprocess.run([py, "-c", "import torch, torchvision"], capture_output=True)
        if r.returncode == 0:
            return py
    return None


@pytest.fixture(scope="module")
def mobilenet(tmp_path_factory):
    py = _torch_python()
    if py is None:
        pytest.skip("no Python with torch and torchvision (apt-get install python3-torchvision)")
    ort = pytest.importorskip("onnxruntime", reason="onnxruntime is not installed")
    d = tmp_path_factory.mktemp("mobilenet")
    path = str(d / "mobilenet_v2.onnx")
    subprocess.run([py, EXPORT, path, "--opset", "17"], check=True, capture_output=True)
    sess = ort.InferenceSession(path, providers=["CPUExecutionProvider"])
    graph = _graph_name(path)
    return d, path, graph, sess


def _graph_name(path):
    import onnx

    return onnx.load(path, load_external_data=False).graph.name


def _backend():
    return "llvm-cpu" if "llvm-cpu" in ireec.query_available_targets() else "vmvx"


def test_mobilenet_v2_matches_onnxruntime(mobilenet):
    d, path, graph, sess = mobilenet
    backend = _backend()
    vmfb = ireec.compile_file(path, target_backends=[backend])
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224), dtype=np.float32)
    want = sess.run(None, {sess.get_inputs()[0].name: x})[0]

    config = ireert.Config("local-task")
    ctx = ireert.SystemContext(config=config)
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    # The entry function is named after the ONNX graph, as IREE's importer names it.
    fn = ctx.modules.module[graph]
    got = np.asarray(fn(x).to_host())

    assert got.shape == want.shape == (1, 1000)
    assert int(got.argmax()) == int(want.argmax())
    rel = np.linalg.norm(got - want) / np.linalg.norm(want)
    assert rel < 1e-4, f"relative L2 error {rel:.3g} on {backend}"


def test_mobilenet_v2_guide_command(mobilenet, bin_dir):
    """The deployment guide's commands, with the function named after the graph."""
    d, path, graph, _ = mobilenet
    vmfb = str(d / "mobilenet.vmfb")
    compile_ = shutil.which("iree-compile", path=bin_dir)
    run = shutil.which("iree-run-module", path=bin_dir)
    subprocess.run([compile_, f"--iree-hal-target-backends={_backend()}", path, "-o", vmfb],
                   check=True, capture_output=True, text=True)
    r = subprocess.run([run, "--device=local-task", f"--module={vmfb}", f"--function={graph}",
                        "--input=1x3x224x224xf32=0"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith(f"EXEC @{graph}\nresult[0]: hal.buffer_view\n1x1000xf32=[")
