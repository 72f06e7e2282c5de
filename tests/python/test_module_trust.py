"""Signed modules: iree-compile --gree-sign-key signs, the runtime flag
--module_trust (through iree_go.runtime.flags.parse_flags) makes loading an
unsigned or foreign-signed module a PERMISSION_DENIED error."""

import pytest

import iree_go.compiler as ireec
import iree_go.runtime as ireert
from iree_go import _capi

PROGRAM = """
module @trusted {
  func.func @add(%a: i32, %b: i32) -> i32 {
    %0 = arith.addi %a, %b : i32
    return %0 : i32
  }
}
"""


def generate_key(prefix):
    code, out, err = _capi.run_tool("iree-compile", ["iree-compile", f"--gree-generate-signing-key={prefix}"])
    assert code == 0, err
    assert b"ed25519:" in out


@pytest.fixture
def trust_reset():
    yield
    ireert.flags.parse_flags("--module_trust=")  # later tests load unsigned modules


def test_module_trust(tmp_path, trust_reset):
    signer, other = str(tmp_path / "signer"), str(tmp_path / "other")
    generate_key(signer)
    generate_key(other)
    unsigned = ireec.compile_str(PROGRAM, target_backends=["vmvx"])
    signed = ireec.compile_str(PROGRAM, target_backends=["vmvx"], extra_args=[f"--gree-sign-key={signer}.key"])
    foreign = ireec.compile_str(PROGRAM, target_backends=["vmvx"], extra_args=[f"--gree-sign-key={other}.key"])
    instance = ireert.VmInstance()

    # No trust required: every module loads.
    for data in (unsigned, signed):
        ireert.VmModule.copy_buffer(instance, data)

    ireert.flags.parse_flags(f"--module_trust={signer}.pub")
    module = ireert.VmModule.copy_buffer(instance, signed)
    assert module.name == "trusted"
    for data, why in ((unsigned, "is not signed"), (foreign, "which is not trusted")):
        with pytest.raises(Exception) as e:
            ireert.VmModule.copy_buffer(instance, data)
        assert e.value.code == 7  # PERMISSION_DENIED
        assert "module 'trusted'" in str(e.value) and why in str(e.value)

    tampered = bytearray(signed)
    tampered[tampered.index(b"trusted") + 3] ^= 0x20
    with pytest.raises(Exception, match="does not verify"):
        ireert.VmModule.copy_buffer(instance, bytes(tampered))

    ireert.flags.parse_flags("--module_trust=")
    ireert.VmModule.copy_buffer(instance, unsigned)
