"""The compiler embedding API in Python (IREE's ``iree.compiler.api``).

``Session`` holds compiler flags, ``Source`` a program, ``Invocation``
compiles a source with its session's flags and ``Output`` receives the
result, over libgree's implementation of IREE's C embedding API
(``include/iree/compiler/embedding_api.h``)::

    session = Session()
    session.set_flags("--iree-hal-target-backends=llvm-cpu")
    inv = session.invocation()
    inv.parse_source(Source.wrap_buffer(session, text))
    inv.execute()
    out = Output.open_membuffer()
    inv.output_vm_bytecode(out)
    vmfb = bytes(out.map_memory())

Errors raise ValueError with the compiler's message; diagnostics of
``parse_source``/``execute`` go to stderr (the console), or to a callback
given to ``Invocation.enable_callback_diagnostics``. ``Session.context``,
``import_module`` and ``export_module`` need MLIR's Python bindings
(``iree.compiler.ir``), which gree does not have: they raise
NotImplementedError.
"""

import os
import re
from enum import IntEnum
from typing import Callable, List, Optional, Sequence

from cffi import FFI

from ... import _capi

__all__ = ["Invocation", "Output", "PipelineType", "Session", "Source"]

_here = os.path.dirname(os.path.abspath(__file__))
_pkg = os.path.dirname(os.path.dirname(_here))
_HEADERS = [
    os.path.join(_pkg, "_lib", "iree", "compiler", "embedding_api.h"),
    os.path.join(os.path.dirname(os.path.dirname(_pkg)), "include", "iree", "compiler", "embedding_api.h"),
]


def _cdef() -> str:
    path = next((p for p in _HEADERS if os.path.exists(p)), None)
    if path is None:
        raise ImportError(f"iree_go.compiler.api: embedding_api.h not found (looked in {', '.join(_HEADERS)})")
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"/\* GREE_EMBED_CDEF_BEGIN \*/(.*)/\* GREE_EMBED_CDEF_END \*/", text, re.S)
    if not m:
        raise ImportError(f"iree_go.compiler.api: {path} has no GREE_EMBED_CDEF block")
    body = re.sub(r"/\*.*?\*/", "", m.group(1), flags=re.S)
    return body.replace("IREE_EMBED_EXPORTED", "")


_ffi = FFI()
_ffi.cdef(_cdef())
_lib = _ffi.dlopen(_capi.library_path)


def _check(err):
    if err != _ffi.NULL:
        try:
            message = _ffi.string(_lib.ireeCompilerErrorGetMessage(err)).decode("utf-8", "replace")
        finally:
            _lib.ireeCompilerErrorDestroy(err)
        raise ValueError(message)


def _argv(args: Sequence[str]):
    keep = [_ffi.new("char[]", a.encode("utf-8")) for a in args]
    return _ffi.new("const char *[]", keep), keep


def _initializeGlobalCL(*cl_args: str):
    """Sets process-wide compiler flags: the defaults of sessions created
    afterwards (IREE's ireeCompilerSetupGlobalCL)."""
    argv, keep = _argv(["iree_go"] + list(cl_args))
    _lib.ireeCompilerSetupGlobalCL(len(keep), argv, b"iree_go", False)


class PipelineType(IntEnum):
    """IREE's compilation pipelines (gree runs IREE_COMPILER_PIPELINE_STD and
    PRECOMPILE; the others report that they are not supported)."""

    IREE_COMPILER_PIPELINE_STD = 0
    IREE_COMPILER_PIPELINE_HAL_EXECUTABLE = 1
    IREE_COMPILER_PIPELINE_PRECOMPILE = 2
    IREE_COMPILER_PIPELINE_VM = 3


class _Owned:
    """An object of the C API, destroyed by close(), ``with`` or the GC."""

    _destroy = None

    def __init__(self, ptr):
        self._ptr = ptr

    def close(self):
        ptr, self._ptr = getattr(self, "_ptr", None), None
        if ptr is not None and ptr != _ffi.NULL:
            type(self)._destroy(ptr)

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _p(self):
        if self._ptr is None:
            raise ValueError(f"the {type(self).__name__} is closed")
        return self._ptr


class Session(_Owned):
    """Compiler flags for the invocations made from it."""

    _destroy = _lib.ireeCompilerSessionDestroy

    def __init__(self):
        super().__init__(_lib.ireeCompilerSessionCreate())

    @property
    def context(self):
        raise NotImplementedError("gree has no MLIR Python bindings (iree.compiler.ir): compile sources with parse_source")

    def invocation(self) -> "Invocation":
        return Invocation(self)

    def get_flags(self, non_default_only: bool = False) -> List[str]:
        flags = []

        @_ffi.callback("void(const char *, size_t, void *)")
        def on_flag(flag, length, user):
            flags.append(_ffi.unpack(flag, length).decode("utf-8"))

        _lib.ireeCompilerSessionGetFlags(self._p(), non_default_only, on_flag, _ffi.NULL)
        return flags

    def set_flags(self, *flags: str):
        argv, keep = _argv(flags)
        _check(_lib.ireeCompilerSessionSetFlags(self._p(), len(keep), argv))


class Output(_Owned):
    """Where an invocation writes: memory, or a file (removed on close
    unless kept)."""

    _destroy = _lib.ireeCompilerOutputDestroy

    @staticmethod
    def open_file(file_path: str) -> "Output":
        out = _ffi.new("iree_compiler_output_t **")
        _check(_lib.ireeCompilerOutputOpenFile(os.fspath(file_path).encode("utf-8"), out))
        return Output(out[0])

    @staticmethod
    def open_membuffer() -> "Output":
        out = _ffi.new("iree_compiler_output_t **")
        _check(_lib.ireeCompilerOutputOpenMembuffer(out))
        return Output(out[0])

    def keep(self) -> "Output":
        _lib.ireeCompilerOutputKeep(self._p())
        return self

    def write(self, buffer):
        data = _ffi.from_buffer(buffer)
        _check(_lib.ireeCompilerOutputWrite(self._p(), data, len(data)))

    def map_memory(self) -> memoryview:
        """The bytes of a membuffer output (valid until the next write or
        close)."""
        contents = _ffi.new("void **")
        size = _ffi.new("uint64_t *")
        _check(_lib.ireeCompilerOutputMapMemory(self._p(), contents, size))
        return memoryview(_ffi.buffer(contents[0], size[0]))


class Source(_Owned):
    """A program for an invocation."""

    _destroy = _lib.ireeCompilerSourceDestroy

    def __init__(self, session: Session, ptr):
        super().__init__(ptr)
        self.session = session

    @staticmethod
    def open_file(session: Session, file_path: str) -> "Source":
        out = _ffi.new("iree_compiler_source_t **")
        _check(_lib.ireeCompilerSourceOpenFile(session._p(), os.fspath(file_path).encode("utf-8"), out))
        return Source(session, out[0])

    @staticmethod
    def wrap_buffer(session: Session, buffer, *, buffer_name: str = "source.mlir") -> "Source":
        """A source of buffer's bytes (str, bytes or a buffer; copied)."""
        if isinstance(buffer, str):
            buffer = buffer.encode("utf-8")
        view = memoryview(buffer).cast("B")
        data = _ffi.from_buffer(view)
        out = _ffi.new("iree_compiler_source_t **")
        terminated = len(view) > 0 and view[-1] == 0
        _check(_lib.ireeCompilerSourceWrapBuffer(session._p(), buffer_name.encode("utf-8"), data, len(view),
                                                 terminated, out))
        return Source(session, out[0])


class Invocation(_Owned):
    """One program compiled with its session's flags."""

    _destroy = _lib.ireeCompilerInvocationDestroy

    def __init__(self, session: Session):
        super().__init__(_lib.ireeCompilerInvocationCreate(session._p()))
        self._session = session
        self._callback = None

    @property
    def session(self) -> Session:
        return self._session

    def enable_console_diagnostics(self):
        self._callback = None
        _lib.ireeCompilerInvocationEnableConsoleDiagnostics(self._p())

    def enable_callback_diagnostics(self, callback: Callable[[int, str], None]):
        """gree: diagnostics go to callback(severity, message) (severity: 0
        note, 1 warning, 2 error, 3 remark)."""

        @_ffi.callback("void(enum iree_compiler_diagnostic_severity_t, const char *, size_t, void *)")
        def on_diagnostic(severity, message, size, user):
            callback(int(severity), _ffi.unpack(message, size).decode("utf-8", "replace"))

        self._callback = on_diagnostic
        _lib.ireeCompilerInvocationEnableCallbackDiagnostics(self._p(), 0, on_diagnostic, _ffi.NULL)

    def set_compile_to_phase(self, phase: str):
        _lib.ireeCompilerInvocationSetCompileToPhase(self._p(), phase.encode("utf-8"))

    def set_compile_from_phase(self, phase: str):
        _lib.ireeCompilerInvocationSetCompileFromPhase(self._p(), phase.encode("utf-8"))

    def set_dump_compilation_phases_to(self, path: str):
        _lib.ireeCompilerInvocationSetDumpCompilationPhasesTo(self._p(), os.fspath(path).encode("utf-8"))

    def set_verify_ir(self, enable: bool):
        _lib.ireeCompilerInvocationSetVerifyIR(self._p(), enable)

    def import_module(self, module_op) -> bool:
        raise NotImplementedError("gree has no MLIR Python bindings (iree.compiler.ir): use parse_source")

    def export_module(self):
        raise NotImplementedError("gree has no MLIR Python bindings (iree.compiler.ir): use output_ir")

    def parse_source(self, source: Source) -> bool:
        return bool(_lib.ireeCompilerInvocationParseSource(self._p(), source._p()))

    def execute(self, pipeline: PipelineType = PipelineType.IREE_COMPILER_PIPELINE_STD) -> bool:
        return bool(_lib.ireeCompilerInvocationPipeline(self._p(), int(pipeline)))

    def execute_text_pass_pipeline(self, text_pipeline_spec: str) -> bool:
        return bool(_lib.ireeCompilerInvocationRunPassPipeline(self._p(), text_pipeline_spec.encode("utf-8")))

    def output_ir(self, output: Output):
        _check(_lib.ireeCompilerInvocationOutputIR(self._p(), output._p()))

    def output_ir_bytecode(self, output: Output, bytecode_version: int = -1):
        _check(_lib.ireeCompilerInvocationOutputIRBytecode(self._p(), output._p(), bytecode_version))

    def output_vm_bytecode(self, output: Output):
        _check(_lib.ireeCompilerInvocationOutputVMBytecode(self._p(), output._p()))
