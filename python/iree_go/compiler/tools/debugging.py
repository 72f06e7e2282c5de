"""Saving the compiler's temporary files (IREE's
``iree.compiler.tools.debugging``).

Set ``IREE_SAVE_TEMPS`` to a directory, or enter a ``TempFileSaver(path)``,
and each compile keeps its input (``core-input.mlir``) and output
(``core-output.bin``) there. The path may hold ``{id}`` (a per-process
invocation number), ``{pid}`` and ``{main}`` (the basename of
``sys.argv[0]``).
"""

import os
import shutil
import sys
import threading
from typing import List, Optional, Tuple

__all__ = ["TempFileSaver"]

_local = threading.local()
_next_id = 0
_id_lock = threading.Lock()


def _stack() -> List["TempFileSaver"]:
    if not hasattr(_local, "stack"):
        _local.stack = []
    return _local.stack


def _expand(pattern: str, invocation_id) -> str:
    # A fixed set of placeholders (not str.format: the pattern comes from
    # the environment).
    for key, value in (("{id}", str(invocation_id)), ("{pid}", str(os.getpid())),
                       ("{main}", os.path.basename(sys.argv[0] if sys.argv else ""))):
        pattern = pattern.replace(key, value)
    return pattern


class TempFileSaver:
    """Decides where a compile's temporary files go.

    Entered as a context manager it becomes the thread's current saver,
    which the compile functions use (``TempFileSaver.implicit()``); without
    a path it takes ``IREE_SAVE_TEMPS``, and with neither it retains
    nothing (``retained`` is False)."""

    TEMP_PATH_ENV_KEY = "IREE_SAVE_TEMPS"

    def __init__(self, temp_path_pattern: Optional[str] = None, *, invocation_id: Optional[str] = None):
        global _next_id
        self.retained = False
        self.retained_path = None
        self._depth = 0
        self._names = set()
        self._exports: List[Tuple[str, str]] = []
        if temp_path_pattern is None:
            temp_path_pattern = os.environ.get(self.TEMP_PATH_ENV_KEY)
        if temp_path_pattern is None:
            return
        if invocation_id is None:
            with _id_lock:
                invocation_id, _next_id = _next_id, _next_id + 1
        self.invocation_id = invocation_id
        self.retained_path = _expand(temp_path_pattern, invocation_id)
        self.retained = True

    @staticmethod
    def implicit() -> "TempFileSaver":
        """The thread's current saver, or a new one from the environment."""
        stack = _stack()
        return stack[-1] if stack else TempFileSaver()

    @staticmethod
    def current() -> "TempFileSaver":
        """The thread's current saver; RuntimeError when none is entered."""
        stack = _stack()
        if not stack:
            raise RuntimeError("No current TempFileSaver")
        return stack[-1]

    def __enter__(self):
        _stack().append(self)
        self._depth += 1
        return self

    def __exit__(self, *exc):
        _stack().pop()
        self._depth -= 1
        if self._depth == 0:
            self._finalize()

    def alloc_optional(self, file_name: str, *, export_as: Optional[str] = None) -> Optional[str]:
        """A path for ``file_name``: under the retained directory when
        retaining (copied to ``export_as`` too when the saver exits), else
        ``export_as`` (None when that is not given either)."""
        if not self.retained:
            return export_as
        path = self._retained(file_name)
        if export_as:
            self._exports.append((path, export_as))
        return path

    def _retained(self, file_name: str) -> str:
        stem, ext = os.path.splitext(file_name)
        name, n = file_name, 0
        while name in self._names:
            n += 1
            name = f"{stem}_{n}{ext}"
        self._names.add(name)
        os.makedirs(self.retained_path, exist_ok=True)
        return os.path.join(self.retained_path, name)

    def _exports_to(self, path: str) -> bool:
        return any(src == path for src, _ in self._exports)

    def _finalize(self):
        exports, self._exports = self._exports, []
        for src, dst in exports:
            if os.path.exists(src):
                shutil.copyfile(src, dst)
