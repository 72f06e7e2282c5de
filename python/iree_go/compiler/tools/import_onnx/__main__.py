"""iree-import-onnx in process (IREE's ``iree.compiler.tools.import_onnx``).

    python -m iree_go.compiler.tools.import_onnx model.onnx -o model.mlir

Same arguments as the ``iree-import-onnx`` command; runs gree's importer
inside libgree. As in IREE, ``parse_arguments(argv)`` returns the parsed
arguments and ``main(args)`` runs the importer with them (``main`` also
takes the argument list itself).
"""

import argparse
import sys
from typing import List, Optional, Union

from .... import _capi


def _parser() -> argparse.ArgumentParser:
    # Spelled as IREE's importer spells its arguments; the values are
    # checked again by the tool, which reports what it does not support.
    p = argparse.ArgumentParser(prog="iree-import-onnx", description="IREE ONNX import tool (gree)")
    p.add_argument("input_file", help="ONNX protobuf input")
    p.add_argument("-o", dest="output_file", help="Output path (or '-' for stdout)")
    p.add_argument("--no-verify", action="store_true", help="Disable verification prior to printing")
    p.add_argument("--data-prop", default=None, action=argparse.BooleanOptionalAction)
    p.add_argument("--data-dir")
    p.add_argument("--opset-version", type=int)
    p.add_argument("--large-model", default=None, action=argparse.BooleanOptionalAction)
    p.add_argument("--fold-shapes", action="store_true")
    p.add_argument("--externalize-params", default=None, action=argparse.BooleanOptionalAction)
    p.add_argument("--save-params-to")
    p.add_argument("--save-params", default=None, action=argparse.BooleanOptionalAction)
    p.add_argument("--params-scope")
    p.add_argument("--param-gb-threshold", type=float)
    p.add_argument("--num-elements-threshold", type=int)
    p.add_argument("--externalize-inputs-threshold", type=int)
    return p


def parse_arguments(argv: Optional[List[str]] = None) -> argparse.Namespace:
    """Parses the importer's arguments (``sys.argv[1:]`` by default); exits
    with usage on a bad one, as IREE's does."""
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    args = _parser().parse_args(argv)
    args.argv = argv
    return args


def _run(argv: List[str]) -> int:
    code, out, err = _capi.run_tool("iree-import-onnx", ["iree-import-onnx"] + argv)
    if out:
        sys.stdout.buffer.write(out)
        sys.stdout.flush()
    if err:
        sys.stderr.buffer.write(err)
        sys.stderr.flush()
    return code


def main(args: Union[argparse.Namespace, List[str], None] = None) -> int:
    """Runs the importer. With the list of arguments (or none: the command
    line), returns the tool's exit code; with parse_arguments' result, a
    failure raises SystemExit with that code, as IREE's main does."""
    if isinstance(args, argparse.Namespace):
        code = _run(list(args.argv))
        if code != 0:
            raise SystemExit(code)
        return code
    return _run(sys.argv[1:] if args is None else [str(a) for a in args])


def _cli_main():
    sys.exit(main())


if __name__ == "__main__":
    _cli_main()
