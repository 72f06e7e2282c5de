"""``python -m iree_go.compiler.tools.import_onnx`` (IREE's
``iree.compiler.tools.import_onnx``): ONNX model → torch-onnx MLIR text."""
