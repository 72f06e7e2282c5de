"""Compiling programs (IREE's iree.compiler.tools.core)."""

import dataclasses
import os
from dataclasses import dataclass, field
from enum import Enum
from typing import List, Optional, Sequence, Union

from .binaries import invoke_immediate
from .debugging import TempFileSaver

__all__ = [
    "DEFAULT_TESTING_BACKENDS",
    "compile_file",
    "compile_str",
    "query_available_targets",
    "CompilerOptions",
    "InputType",
    "OutputFormat",
    "TempFileSaver",
]

DEFAULT_TESTING_BACKENDS = ["llvm-cpu"]
DEFAULT_TESTING_DRIVER = "local-task"


class InputType(Enum):
    """The dialect of the input program."""

    NONE = "none"
    AUTO = "auto"
    STABLEHLO = "stablehlo"
    STABLEHLO_XLA = "stablehlo_xla"
    TOSA = "tosa"
    TM_TENSOR = "tm_tensor"
    TORCH = "torch"
    ONNX = "onnx"

    @staticmethod
    def parse(spec: Union[str, "InputType"]) -> "InputType":
        if isinstance(spec, InputType):
            return spec
        spec = spec.upper().replace("-", "_")
        if spec not in InputType.__members__:
            raise ValueError(
                "For input_type= argument, expected one of: "
                f"{', '.join(InputType.__members__.keys())}"
            )
        return InputType[spec]

    def __str__(self):
        return self.value


class OutputFormat(Enum):
    """The format of the compiled output."""

    FLATBUFFER_BINARY = "flatbuffer-binary"
    FLATBUFFER_TEXT = "flatbuffer-text"
    MLIR_TEXT = "mlir-text"

    @staticmethod
    def parse(spec: Union[str, "OutputFormat"]) -> "OutputFormat":
        if isinstance(spec, OutputFormat):
            return spec
        spec = spec.upper().replace("-", "_")
        if spec not in OutputFormat.__members__:
            raise ValueError(
                "For output_format= argument, expected one of: "
                f"{', '.join(OutputFormat.__members__.keys())}"
            )
        return OutputFormat[spec]

    def __str__(self):
        return self.value


@dataclass
class CompilerOptions:
    """Options for compile_str and compile_file (IREE's fields and defaults)."""

    output_file: Optional[str] = None
    target_backends: Sequence[str] = ()
    input_type: Union[InputType, str] = InputType.AUTO
    output_format: Union[OutputFormat, str] = OutputFormat.FLATBUFFER_BINARY
    extra_args: Sequence[str] = ()
    optimize: bool = True
    output_mlir_debuginfo: bool = True
    output_generic_mlir: bool = False
    extended_diagnostics: bool = False
    strip_debug_ops: bool = False
    strip_source_map: bool = False
    crash_reproducer_path: Optional[str] = None
    enable_tflite_bindings: bool = False
    enable_benchmark: bool = False

    def __post_init__(self):
        self.input_type = InputType.parse(self.input_type)
        self.output_format = OutputFormat.parse(self.output_format)


def build_compile_command_line(input_file: str, options: CompilerOptions) -> List[str]:
    """The iree-compile command line for options, in IREE's order."""
    cl = [
        "iree-compile",
        input_file,
        f"--iree-input-type={options.input_type!s}",
        f"--iree-vm-bytecode-module-output-format={options.output_format!s}",
    ]
    for b in options.target_backends:
        cl.append(f"--iree-hal-target-backends={b}")
    if options.output_file:
        cl.append(f"-o={options.output_file}")
    if options.output_mlir_debuginfo:
        cl.append("--mlir-print-debuginfo")
    if options.output_generic_mlir:
        cl.append("--mlir-print-op-generic")
    cl.append(
        "--mlir-print-op-on-diagnostic=" + ("true" if options.extended_diagnostics else "false")
    )
    if options.strip_debug_ops:
        cl.append("--iree-vm-bytecode-module-strip-debug-ops")
    if options.strip_source_map:
        cl.append("--iree-vm-bytecode-module-strip-source-map")
    cl.extend(options.extra_args)
    return cl


def _compile(input_file: str, options: CompilerOptions, data: Optional[bytes], tfs: TempFileSaver) -> Optional[bytes]:
    # With a retaining saver the output goes to core-output.bin first (and
    # is copied to output_file when the saver exits), as IREE does.
    out_path = tfs.alloc_optional("core-output.bin", export_as=options.output_file)
    if out_path != options.output_file:
        options = dataclasses.replace(options, output_file=out_path)
    result = invoke_immediate(build_compile_command_line(input_file, options), input_file=data)
    if not out_path:
        return result
    if tfs.retained and not tfs._exports_to(out_path):
        with open(out_path, "rb") as f:
            return f.read()
    return None


def compile_file(input_file: str, **kwargs) -> Optional[bytes]:
    """Compiles a file; returns the module bytes, or None with output_file."""
    options = CompilerOptions(**kwargs)
    with TempFileSaver.implicit() as tfs:
        return _compile(os.fspath(input_file), options, None, tfs)


def compile_str(input_str: Union[str, bytes], **kwargs) -> Optional[bytes]:
    """Compiles source text; returns the module bytes, or None with output_file."""
    options = CompilerOptions(**kwargs)
    data = input_str.encode("utf-8") if isinstance(input_str, str) else bytes(input_str)
    with TempFileSaver.implicit() as tfs:
        if tfs.retained:
            name = "core-input.mlir" if isinstance(input_str, str) else "core-input.mlirbc"
            with open(tfs.alloc_optional(name), "wb") as f:
                f.write(data)
        return _compile("-", options, data, tfs)


def query_available_targets() -> List[str]:
    """The target backends that compile end to end, sorted."""
    out = invoke_immediate(["iree-compile", "--iree-hal-list-target-backends"])
    lines = out.decode("utf-8").splitlines()[1:]
    return [l.strip() for l in lines if l.strip()]
