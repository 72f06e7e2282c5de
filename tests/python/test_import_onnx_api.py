"""iree_go.compiler.tools.import_onnx: IREE's in-process importer entry
points (``parse_arguments`` and ``main``)."""

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from iree_go.compiler.tools.import_onnx import __main__ as importer  # noqa: E402


@pytest.fixture
def leaky_relu(tmp_path):
    node = helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.1)
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    path = tmp_path / "leaky.onnx"
    onnx.save(model, path)
    return path


def test_parse_arguments_then_main_writes_the_module(leaky_relu, tmp_path):
    out = tmp_path / "leaky.mlir"
    args = importer.parse_arguments([str(leaky_relu), "-o", str(out), "--no-verify", "--opset-version", "17"])
    assert args.output_file == str(out) and args.no_verify and args.opset_version == 17
    assert importer.main(args) == 0
    text = out.read_text()
    assert 'torch.operator "onnx.LeakyRelu"' in text and "func.func @" in text


def test_main_with_a_list_returns_the_exit_code(leaky_relu, capfd):
    assert importer.main([str(leaky_relu)]) == 0
    assert "onnx.LeakyRelu" in capfd.readouterr().out
    assert importer.main([str(leaky_relu) + ".missing"]) != 0


def test_failure_through_parsed_arguments_raises_system_exit(tmp_path):
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"\x08\x07\x12garbage")
    with pytest.raises(SystemExit) as e:
        importer.main(importer.parse_arguments([str(bad)]))
    assert e.value.code != 0


def test_bad_argument_exits_with_usage(capsys):
    with pytest.raises(SystemExit) as e:
        importer.parse_arguments(["m.onnx", "--no-such-option"])
    assert e.value.code == 2
    assert "unrecognized arguments: --no-such-option" in capsys.readouterr().err


def test_externalized_parameters_run_with_parameters_flag(tmp_path, bin_dir):
    import os
    import subprocess

    import numpy as np
    from onnx import numpy_helper

    w = np.arange(256, dtype=np.float32).reshape(16, 16) / 100  # ≥ 100 elements: externalized
    node = helper.make_node("MatMul", ["x", "W"], ["y"])
    graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
                              initializer=[numpy_helper.from_array(w, "W")])
    path = tmp_path / "mm.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    mlir = tmp_path / "mm.mlir"
    args = importer.parse_arguments([str(path), "--externalize-params", "-o", str(mlir)])
    assert importer.main(args) == 0
    assert "#flow.parameter.named" in mlir.read_text()
    irpa = str(tmp_path / "mm_params.irpa")  # IREE's name: the output's stem + _params.irpa
    vmfb = tmp_path / "mm.vmfb"
    tool = lambda name, *a: subprocess.run([os.path.join(bin_dir, name), *a], capture_output=True, text=True)
    r = tool("iree-compile", "--iree-hal-target-backends=vmvx", str(mlir), "-o", str(vmfb))
    assert r.returncode == 0, r.stderr
    assert vmfb.stat().st_size < w.nbytes  # the module holds no weights
    r = tool("iree-run-module", f"--module={vmfb}", f"--parameters=model={irpa}", "--input=1x16xf32=1")
    assert r.returncode == 0, r.stderr
    got = [float(v) for v in r.stdout.split("1x16xf32=[")[1].split("]")[0].split()]
    np.testing.assert_allclose(got, w.sum(axis=0), rtol=1e-5)


def test_externalized_inputs_run_from_the_users_archive(tmp_path, bin_dir):
    """--externalize-inputs-threshold: graph inputs from the index on are
    parameters; the module runs with their values from an archive and gives
    what the model gives with them as arguments."""
    import os
    import subprocess

    import numpy as np
    from onnx import numpy_helper

    rng = np.random.default_rng(7)
    w = rng.standard_normal((16, 8)).astype(np.float32)
    x = rng.standard_normal((2, 16)).astype(np.float32)
    b = rng.standard_normal((2, 8)).astype(np.float32)
    nodes = [helper.make_node("MatMul", ["x", "W"], ["xw"]), helper.make_node("Add", ["xw", "b"], ["y"])]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16]),
                                           helper.make_tensor_value_info("b", TensorProto.FLOAT, [2, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8])],
                              initializer=[numpy_helper.from_array(w, "W")])
    path = tmp_path / "dense.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
    mlir = tmp_path / "dense.mlir"
    args = importer.parse_arguments([str(path), "--externalize-params", "--externalize-inputs-threshold", "1",
                                     "-o", str(mlir)])
    assert importer.main(args) == 0
    text = mlir.read_text()
    assert '#flow.parameter.named<"model"::"b">' in text and "%arg1" not in text and "%arg0" in text

    tool = lambda name, *a: subprocess.run([os.path.join(bin_dir, name), *a], capture_output=True, text=True)
    vmfb = tmp_path / "dense.vmfb"
    r = tool("iree-compile", "--iree-hal-target-backends=vmvx", str(mlir), "-o", str(vmfb))
    assert r.returncode == 0, r.stderr
    (tmp_path / "b.bin").write_bytes(b.tobytes())
    inputs = tmp_path / "inputs.irpa"
    r = tool("iree-create-parameters", f"--data=b=2x8xf32=@{tmp_path / 'b.bin'}", f"--output={inputs}")
    assert r.returncode == 0, r.stderr
    np.save(tmp_path / "x.npy", x)
    run = ["iree-run-module", f"--module={vmfb}", f"--input=@{tmp_path / 'x.npy'}",
           f"--parameters=model={tmp_path / 'dense_params.irpa'}", f"--output=@{tmp_path / 'y.npy'}"]
    r = tool(*run)
    assert r.returncode != 0 and "'model::b' not found" in r.stderr  # b is not in the model's archive
    r = tool(*run, f"--parameters=model={inputs}")
    assert r.returncode == 0, r.stderr
    np.testing.assert_allclose(np.load(tmp_path / "y.npy"), x @ w + b, rtol=1e-5, atol=1e-5)


def test_externalize_inputs_threshold_out_of_range(leaky_relu, capfd):
    assert importer.main([str(leaky_relu), "--externalize-params", "--no-save-params",
                          "--externalize-inputs-threshold", "1"]) != 0
    assert "the threshold must be in [0, 1)" in capfd.readouterr().err


def test_no_externalize_params_is_accepted(leaky_relu, capfd):
    args = importer.parse_arguments([str(leaky_relu), "--externalize-params", "--no-externalize-params"])
    assert args.externalize_params is False
    assert importer.main(args) == 0
    assert "util.global" not in capfd.readouterr().out
