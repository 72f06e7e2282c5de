// A named module with attributes, public/private functions, argument and
// result attributes, declarations and calls.
#executable_target = #hal.executable.target<"vmvx", "vmvx-bytecode-fb">
module @named attributes {hal.device.targets = [#hal.device.target<"local", [#executable_target]>]} {
  func.func private @decl(tensor<4xf32> {iree.abi.output = 0 : index}, i32) -> (tensor<4xf32>, i32 {foo})
  func.func public @main(%arg0: tensor<4xf32> {iree.abi.name = "x"}) -> (tensor<4xf32> {iree.abi.output = 0 : index}) attributes {iree.reflection = {f = "x"}} {
    %c = arith.constant 3 : i32
    %0:2 = func.call @decl(%arg0, %c) : (tensor<4xf32>, i32) -> (tensor<4xf32>, i32)
    %1 = call @helper(%0#0) {noinline} : (tensor<4xf32>) -> tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
    %y = arith.addf %x, %x : tensor<4xf32>
    func.return %y : tensor<4xf32>
  }
  func.func nested @empty_result() -> () {
    return
  }
}
