// Loop and Scan bodies move into scf.while: the Loop carries a trip count,
// a condition, one value and one scan output; the Scan one state and a
// reversed scan input.
func.func @loop(%m: !torch.vtensor<[],si64>, %c: !torch.vtensor<[],i1>, %v: !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0:2 = torch.operator "onnx.Loop"(%m, %c, %v) : (!torch.vtensor<[],si64>, !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) {
  ^bb0(%i: !torch.vtensor<[],si64>, %cond: !torch.vtensor<[],i1>, %acc: !torch.vtensor<[2],f32>):
    %f = torch.operator "onnx.Cast"(%i) {torch.onnx.to = 1 : si64} : (!torch.vtensor<[],si64>) -> !torch.vtensor<[],f32>
    %n = torch.operator "onnx.Add"(%acc, %f) : (!torch.vtensor<[2],f32>, !torch.vtensor<[],f32>) -> !torch.vtensor<[2],f32>
    torch.operator_terminator %cond, %n, %n : !torch.vtensor<[],i1>, !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>
}

func.func @scan(%s: !torch.vtensor<[2],f32>, %x: !torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) attributes {torch.onnx_meta.opset_version = 17 : si64} {
  %0:2 = torch.operator "onnx.Scan"(%s, %x) {torch.onnx.num_scan_inputs = 1 : si64, torch.onnx.scan_input_directions = [1 : si64]} : (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) -> (!torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>) {
  ^bb0(%st: !torch.vtensor<[2],f32>, %e: !torch.vtensor<[2],f32>):
    %n = torch.operator "onnx.Mul"(%st, %e) : (!torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>) -> !torch.vtensor<[2],f32>
    torch.operator_terminator %n, %n : !torch.vtensor<[2],f32>, !torch.vtensor<[2],f32>
  }
  return %0#0, %0#1 : !torch.vtensor<[2],f32>, !torch.vtensor<[3,2],f32>
}
