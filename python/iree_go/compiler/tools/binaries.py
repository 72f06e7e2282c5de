"""Running the compiler tool (IREE's tools/binaries.py).

IREE shells out to ``iree-compile``; gree runs the same tool in process
through libgree (``gree_tool_run``), with the same exit code, stdout and
stderr, so errors read as IREE's do.
"""

import sys
from typing import List, Optional

from ... import _capi

__all__ = ["CompilerToolError", "invoke_immediate", "get_tool_path"]

_KNOWN_TOOLS = ("iree-compile",)


class CompilerToolError(Exception):
    """A compiler tool exited non-zero."""

    def __init__(self, tool_name: str, returncode: int, stderr: bytes, args: List[str]):
        self.tool_name = tool_name
        self.returncode = returncode
        self.stderr = stderr
        self.args_list = args
        super().__init__(
            f"Error invoking IREE compiler tool {tool_name}\n"
            f"Error code: {returncode}\n"
            f"Diagnostics:\n{stderr.decode('utf-8', 'replace')}\n\n"
            f"Invoked with:\n {tool_name} {' '.join(args)}\n\n"
            "Need more information? Set IREE_SAVE_TEMPS=/some/dir in your "
            "environment to save all artifacts and reproducers.\n"
        )


def get_tool_path(exe_name: str) -> str:
    """The path of a packaged tool binary (for subprocess users)."""
    if exe_name not in _KNOWN_TOOLS:
        raise ValueError(f"IREE compiler tool '{exe_name}' is not a known tool")
    from ..._tools import tool_path

    return tool_path(exe_name)


def invoke_immediate(command_line: List[str], *, input_file: Optional[bytes] = None) -> bytes:
    """Runs ``command_line`` (tool name first); returns stdout or raises.

    The tool's stderr is copied to ``sys.stderr`` on success, as IREE does.
    """
    tool = command_line[0]
    if tool not in _KNOWN_TOOLS:
        raise ValueError(f"IREE compiler tool '{tool}' is not a known tool")
    code, out, err = _capi.run_tool(tool, command_line, input_file or b"")
    if code != 0:
        raise CompilerToolError(tool, code, err, command_line)
    if err:
        sys.stderr.write(err.decode("utf-8", "replace"))
    return out
