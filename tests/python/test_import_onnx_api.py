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
