"""iree-import-onnx in process (IREE's ``iree.compiler.tools.import_onnx``).

    python -m iree_go.compiler.tools.import_onnx model.onnx -o model.mlir

Same arguments as the ``iree-import-onnx`` command; runs gree's importer
inside libgree.
"""

import sys
from typing import List, Optional

from .... import _capi


def main(argv: Optional[List[str]] = None) -> int:
    """Runs the importer with ``argv`` (without the program name)."""
    args = sys.argv[1:] if argv is None else list(argv)
    code, out, err = _capi.run_tool("iree-import-onnx", ["iree-import-onnx"] + args)
    if out:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    if err:
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
    return code


def _cli_main():
    sys.exit(main())


if __name__ == "__main__":
    _cli_main()
