"""iree_go.compiler's names, enums and tool errors."""

import os

import pytest

import iree_go.compiler as ireec
from iree_go import _capi


def test_query_available_targets_lists_only_working_targets():
    targets = ireec.query_available_targets()
    assert targets == sorted(targets)
    # Only targets that compile end to end are listed: llvm-cpu only where
    # an LLVM (the system's libLLVM 19, or llvmlite's) is found.
    if "llvm-cpu" in targets:
        assert targets == ["cuda", "llvm-cpu", "vmvx", "vmvx-inline", "vulkan-spirv"]
    else:
        assert targets == ["cuda", "vmvx", "vmvx-inline", "vulkan-spirv"]


def test_namespace_matches_iree():
    for name in ("compile_str", "compile_file", "query_available_targets", "CompilerOptions",
                 "InputType", "OutputFormat", "CompilerToolError", "DEFAULT_TESTING_BACKENDS"):
        assert hasattr(ireec, name), name
    assert ireec.core.DEFAULT_TESTING_BACKENDS == ["llvm-cpu"]
    assert ireec.tools.core is ireec.core


def test_enum_parsing():
    assert ireec.InputType.parse("stablehlo-xla") is ireec.InputType.STABLEHLO_XLA
    assert str(ireec.InputType.TOSA) == "tosa"
    assert ireec.OutputFormat.parse("flatbuffer_text") is ireec.OutputFormat.FLATBUFFER_TEXT
    with pytest.raises(ValueError, match="For input_type= argument, expected one of: NONE, AUTO, STABLEHLO, STABLEHLO_XLA, TOSA, TM_TENSOR, TORCH, ONNX"):
        ireec.CompilerOptions(input_type="bogus")
    with pytest.raises(ValueError, match="For output_format= argument, expected one of: FLATBUFFER_BINARY, FLATBUFFER_TEXT, MLIR_TEXT"):
        ireec.CompilerOptions(output_format="bogus")


def test_unknown_backend_is_compiler_tool_error():
    with pytest.raises(ireec.CompilerToolError) as e:
        ireec.compile_str("func.func @f() { return }", target_backends=["bogus"])
    msg = str(e.value)
    assert msg.startswith("Error invoking IREE compiler tool iree-compile\nError code: 1\nDiagnostics:\n")
    assert "target backend 'bogus' not registered" in msg
    assert "--iree-hal-target-backends=bogus" in msg
    assert "IREE_SAVE_TEMPS" in msg


def test_panic_in_library_is_internal_error_not_crash():
    with pytest.raises(RuntimeError, match="deliberate panic") as e:
        _capi.run_tool("gree-selftest-panic", ["x"])
    assert e.value.code == 13  # INTERNAL
    # One line, no Go stack trace (GREE_DEBUG=1 writes it to stderr).
    assert "\n" not in str(e.value).strip() and "goroutine" not in str(e.value) and "GREE_DEBUG=1" in str(e.value)
    # The library still works afterwards.
    assert ireec.query_available_targets()[-3:] == ["vmvx", "vmvx-inline", "vulkan-spirv"]


def test_temp_file_saver_keeps_input_and_output(tmp_path):
    from iree_go.compiler.tools import TempFileSaver
    src = "func.func @neg(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = arith.negf %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n"
    saved = tmp_path / "saved"
    with TempFileSaver(str(saved / "{id}")) as tfs:
        assert tfs.retained and tfs.retained_path.startswith(str(saved))
        blob = ireec.compile_str(src, target_backends=["vmvx"])
        out = tmp_path / "m.vmfb"
        assert ireec.compile_str(src, target_backends=["vmvx"], output_file=str(out)) is None
        assert not out.exists()  # copied there when the saver exits
    assert out.read_bytes() == blob
    root = tfs.retained_path
    assert open(os.path.join(root, "core-input.mlir")).read() == src
    assert open(os.path.join(root, "core-output.bin"), "rb").read() == blob
    assert os.path.exists(os.path.join(root, "core-output_1.bin"))  # the second compile's


def test_iree_save_temps_environment(tmp_path, monkeypatch):
    from iree_go.compiler.tools import TempFileSaver
    monkeypatch.setenv("IREE_SAVE_TEMPS", str(tmp_path / "{pid}"))
    ireec.compile_str("func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> { return %a : tensor<2xf32> }", target_backends=["vmvx"])
    assert os.path.exists(tmp_path / str(os.getpid()) / "core-output.bin")
    monkeypatch.delenv("IREE_SAVE_TEMPS")
    with TempFileSaver() as tfs:
        assert not tfs.retained and tfs.alloc_optional("x.bin") is None


def test_text_output_formats():
    import json
    src = "func.func @neg(%a: tensor<2xf32>) -> tensor<2xf32> {\n  %0 = arith.negf %a : tensor<2xf32>\n  return %0 : tensor<2xf32>\n}\n"
    fb = json.loads(ireec.compile_str(src, target_backends=["vmvx"], output_format=ireec.OutputFormat.FLATBUFFER_TEXT))
    assert fb["exported_functions"] == [{"local_name": "neg", "internal_ordinal": 0}]
    assert fb["executables"][0]["format"] == "vmvx-bytecode"
    text = ireec.compile_str(src, target_backends=["vmvx"], output_format="mlir_text").decode()
    assert text.startswith("vm.module public @") and "vm.func private @neg(%r0: !vm.ref<?>)" in text
    assert "  vm.export @neg\n" in text
