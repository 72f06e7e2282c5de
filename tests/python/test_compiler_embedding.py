"""IREE's compiler embedding API: iree_go.compiler.api over libgree's
ireeCompiler* C functions, and a C program compiling in process."""

import os
import subprocess

import numpy as np
import pytest

import iree_go.runtime as ireert
from iree_go.compiler.api import Invocation, Output, PipelineType, Session, Source
from conftest import build_c_example

ADD = b"""
func.func @add(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.addf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"""


def compile_module(session, text, name="add.mlir"):
    inv = session.invocation()
    diags = []
    inv.enable_callback_diagnostics(lambda sev, msg: diags.append((sev, msg)))
    assert inv.parse_source(Source.wrap_buffer(session, text, buffer_name=name)), diags
    assert inv.execute(), diags
    out = Output.open_membuffer()
    inv.output_vm_bytecode(out)
    return bytes(out.map_memory())


def test_flags_are_scoped_to_sessions_and_checked():
    s1, s2 = Session(), Session()
    assert s1.get_flags(non_default_only=True) == []
    assert "--iree-input-type=auto" in s1.get_flags()
    s1.set_flags("--iree-input-type=tosa")
    s2.set_flags("--iree-input-type=none")
    assert "--iree-input-type=tosa" in s1.get_flags() and "--iree-input-type=none" in s2.get_flags()
    with pytest.raises(ValueError, match="Unknown command line argument '--does-not-exist=1'"):
        s1.set_flags("--does-not-exist=1")
    with pytest.raises(ValueError, match="action of the iree-compile tool"):
        s1.set_flags("--help")


def test_compiled_module_runs_and_matches_the_tool():
    session = Session()
    session.set_flags("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=vmvx")
    vmfb = compile_module(session, ADD)
    import iree_go.compiler as ireec
    assert vmfb == ireec.compile_str(ADD, target_backends=["vmvx"])
    ctx = ireert.SystemContext(config=ireert.Config("local-sync"))
    ctx.add_vm_module(ireert.VmModule.copy_buffer(ctx.instance, vmfb))
    a, b = np.arange(4, dtype=np.float32), np.full(4, 0.5, np.float32)
    np.testing.assert_array_equal(ctx.modules.module.add(a, b).to_host(), a + b)


def test_diagnostics_name_the_buffer_and_line():
    session = Session()
    inv = session.invocation()
    diags = []
    inv.enable_callback_diagnostics(lambda sev, msg: diags.append((sev, msg)))
    assert not inv.parse_source(Source.wrap_buffer(session, "func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {\n  return %b : tensor<4xf32>\n}", buffer_name="bad.mlir"))
    assert len(diags) == 1 and diags[0][0] == 2 and diags[0][1].startswith("bad.mlir:2:"), diags
    assert not inv.execute()
    assert "parse one" in diags[-1][1]


def test_ir_outputs_and_phases(tmp_path):
    session = Session()
    session.set_flags("--iree-hal-target-backends=vmvx")
    inv = session.invocation()
    inv.enable_callback_diagnostics(lambda sev, msg: None)
    assert inv.parse_source(Source.wrap_buffer(session, ADD + b"\0"))
    out = Output.open_membuffer()
    inv.output_ir(out)
    assert b'sym_name = "add"' in bytes(out.map_memory())
    with pytest.raises(ValueError, match="no MLIR bytecode"):
        inv.output_ir_bytecode(Output.open_membuffer())
    assert not inv.execute_text_pass_pipeline("symbol-dce")
    inv.set_compile_to_phase("flow")
    inv.set_dump_compilation_phases_to(str(tmp_path / "dumps"))
    assert inv.execute()
    with pytest.raises(ValueError, match="stopped after the 'flow' phase"):
        inv.output_vm_bytecode(Output.open_membuffer())
    flow = Output.open_membuffer()
    inv.output_ir(flow)
    assert b"flow" in bytes(flow.map_memory()) or b"dispatch" in bytes(flow.map_memory())
    assert len(os.listdir(tmp_path / "dumps")) >= 2
    assert not inv.execute(PipelineType.IREE_COMPILER_PIPELINE_VM)


def test_outputs_files_and_misuse(tmp_path):
    path = tmp_path / "o.bin"
    out = Output.open_file(path)
    out.write(b"foobar")
    assert path.exists()
    with pytest.raises(ValueError, match="only a membuffer"):
        out.map_memory()
    out.close()
    assert not path.exists()
    with Output.open_file(path) as out:
        out.write(b"kept")
        out.keep()
    assert path.read_bytes() == b"kept"
    with pytest.raises(ValueError, match="cannot open source file"):
        Source.open_file(Session(), tmp_path / "missing.mlir")
    s = Session()
    s.close()
    with pytest.raises(ValueError, match="closed"):
        s.invocation()
    with pytest.raises(NotImplementedError, match="iree.compiler.ir"):
        Session().context


def test_c_program_compiles_in_process(tmp_path):
    exe = build_c_example("compile_in_process", tmp_path)
    src = tmp_path / "add.mlir"
    src.write_bytes(ADD)
    out = tmp_path / "add.vmfb"
    r = subprocess.run([exe, str(src), str(out), "--iree-hal-target-backends=vmvx"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "flag --iree-hal-target-backends=vmvx" in r.stdout and "module " in r.stdout
    m = ireert.VmModule.mmap(ireert.VmInstance(), str(out))
    assert m.function_names == ["add"]
    src.write_text("func.func @f( {")
    r = subprocess.run([exe, str(src), str(out), "--iree-hal-target-backends=vmvx"], capture_output=True, text=True)
    assert r.returncode == 1 and "diagnostic error: " + str(src) + ":1:" in r.stdout, r.stdout
