package parser

import "testing"

// TestTorchForms checks the torch dialect syntaxes IREE's ONNX importer
// writes.
func TestTorchForms(t *testing.T) {
	checkForms(t, "%a: !torch.vtensor<[2,?],f32>, %c: !torch.vtensor<[],i1>, %n: !torch.none", []struct{ in, want string }{
		{`%0 = torch.operator "onnx.Add"(%a, %a) : (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32>`,
			`%0 = "torch.operator"(%arg0, %arg0) {name = "onnx.Add"} : (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],f32>) -> !torch.vtensor<[2,?],f32>`},
		{`%0 = torch.operator "onnx.Conv"(%a, %a, %n) {torch.onnx.pads = [1 : si64, 1 : si64], torch.onnx.alpha = 2.5 : f32} : (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],f32>, !torch.none) -> !torch.vtensor<[2,?],f32>`,
			`%0 = "torch.operator"(%arg0, %arg0, %arg2) {name = "onnx.Conv", torch.onnx.alpha = 2.500000e+00 : f32, torch.onnx.pads = [1 : si64, 1 : si64]} : (!torch.vtensor<[2,?],f32>, !torch.vtensor<[2,?],f32>, !torch.none) -> !torch.vtensor<[2,?],f32>`},
		{`%0:2 = torch.operator "onnx.TopK"(%a) : (!torch.vtensor<[2,?],f32>) -> (!torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],si64>)`,
			`%0:2 = "torch.operator"(%arg0) {name = "onnx.TopK"} : (!torch.vtensor<[2,?],f32>) -> (!torch.vtensor<[2,1],f32>, !torch.vtensor<[2,1],si64>)`},
		{"%0 = torch.operator \"onnx.If\"(%c) : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2,?],f32> {\n  torch.operator_terminator %a : !torch.vtensor<[2,?],f32>\n}, {\n  torch.operator_terminator %a : !torch.vtensor<[2,?],f32>\n}",
			`%0 = "torch.operator"(%arg1) ({
  "torch.operator_terminator"(%arg0) : (!torch.vtensor<[2,?],f32>) -> ()
}, {
  "torch.operator_terminator"(%arg0) : (!torch.vtensor<[2,?],f32>) -> ()
}) {name = "onnx.If"} : (!torch.vtensor<[],i1>) -> !torch.vtensor<[2,?],f32>`},
		{`%0 = torch.constant.none`, `%0 = "torch.constant.none"() : () -> !torch.none`},
		{`%0 = torch.constant.int -3`, `%0 = "torch.constant.int"() {value = -3 : i64} : () -> !torch.int`},
		{`%0 = torch.constant.float 1.5`, `%0 = "torch.constant.float"() {value = 1.500000e+00 : f64} : () -> !torch.float`},
		{`%0 = torch.constant.bool true`, `%0 = "torch.constant.bool"() {value = true} : () -> !torch.bool`},
		{`%0 = torch.constant.str "mode"`, `%0 = "torch.constant.str"() {value = "mode"} : () -> !torch.str`},
		{`%0 = torch.vtensor.literal(dense<[1, 2]> : tensor<2xsi64>) : !torch.vtensor<[2],si64>`,
			`%0 = "torch.vtensor.literal"() {value = dense<[1, 2]> : tensor<2xsi64>} : () -> !torch.vtensor<[2],si64>`},
		{`%0 = torch_c.to_builtin_tensor %a : !torch.vtensor<[2,?],f32> -> tensor<2x?xf32>`,
			`%0 = "torch_c.to_builtin_tensor"(%arg0) : (!torch.vtensor<[2,?],f32>) -> tensor<2x?xf32>`},
	})
}
