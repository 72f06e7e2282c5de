package multidevice

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/compiler"
	"github.com/gree-ml/gree/go/runtime/tooling"
	"github.com/gree-ml/gree/go/schemas/module"
)

// program adds two vectors and sums the result (two dispatches, one
// temporary buffer).
const program = `
func.func @main(%a: tensor<1000xf32>, %b: tensor<1000xf32>) -> tensor<f32> {
  %e = tensor.empty() : tensor<1000xf32>
  %s = linalg.add ins(%a, %b : tensor<1000xf32>, tensor<1000xf32>) outs(%e : tensor<1000xf32>) -> tensor<1000xf32>
  %z = arith.constant 0.0 : f32
  %i = tensor.empty() : tensor<f32>
  %f = linalg.fill ins(%z : f32) outs(%i : tensor<f32>) -> tensor<f32>
  %r = linalg.reduce ins(%s : tensor<1000xf32>) outs(%f : tensor<f32>) dimensions = [0]
    (%x: f32, %acc: f32) {
      %y = arith.addf %x, %acc : f32
      linalg.yield %y : f32
    }
  return %r : tensor<f32>
}
`

// compile writes the program's module, with the device names devices
// (none: a one-device module), and returns its path.
func compile(t *testing.T, devices ...string) string {
	t.Helper()
	out, err := compiler.Compile([]byte(program), compiler.Options{Filename: "sum.mlir", Backends: []string{"vmvx", "vulkan-spirv"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(devices) > 0 {
		m, err := module.Decode(out)
		if err != nil {
			t.Fatal(err)
		}
		m.Attrs = append(m.Attrs, module.Attr{Key: module.AttrDevices, Value: strings.Join(devices, ",")})
		out = module.Encode(m)
	}
	path := filepath.Join(t.TempDir(), "sum.vmfb")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func run(t *testing.T, path string, devices, allocators []string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := tooling.RunModule(tooling.RunOptions{
		Modules: []string{path}, Devices: devices, Allocators: allocators, MaxElements: 16,
		Inputs: []string{"1000xf32=0.5", "1000xf32=1.5"},
	}, nil, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// Several --device flags: a one-device module runs on the first; a module
// naming two devices gets the two given; one naming three is refused with
// the devices there are.
func TestDeviceList(t *testing.T) {
	one, two, three := compile(t), compile(t, "a", "b"), compile(t, "a", "b", "c")
	devices := []string{"local-sync", "local-task"}
	for _, path := range []string{one, two} {
		code, out, errs := run(t, path, devices, nil)
		if code != 0 || !strings.Contains(out, "f32=2000") {
			t.Fatalf("%s on %v: exit %d\n%s%s", filepath.Base(path), devices, code, out, errs)
		}
	}
	code, _, errs := run(t, three, devices, nil)
	if code == 0 || !strings.Contains(errs, "places work on 3 devices (a, b, c) but the HAL module was given 2 (local-sync, local-task)") {
		t.Fatalf("3-device module on 2 devices: exit %d, %s", code, errs)
	}
	code, _, errs = run(t, two, []string{"local-sync"}, nil)
	if code == 0 || !strings.Contains(errs, "places work on 2 devices") {
		t.Fatalf("2-device module on 1 device: exit %d, %s", code, errs)
	}
}

// --device_allocator on a compiled program: the results are those of the
// device's own allocator; an unknown spec names the known ones.
func TestDeviceAllocators(t *testing.T) {
	path := compile(t)
	for _, specs := range [][]string{{"caching"}, {"debug"}, {"caching", "debug"}, {"debug", "caching:device_local=1mib;8mib;16"}} {
		for _, device := range []string{"local-sync", "local-task", "vulkan"} {
			code, out, errs := run(t, path, []string{device}, specs)
			if device == "vulkan" && code != 0 && strings.Contains(errs, "UNAVAILABLE") {
				continue
			}
			if code != 0 || !strings.Contains(out, "f32=2000") || strings.Contains(errs, "debug allocator") {
				t.Errorf("%s with %v: exit %d\n%s%s", device, specs, code, out, errs)
			}
		}
	}
	code, _, errs := run(t, path, nil, []string{"pooling"})
	if code == 0 || !strings.Contains(errs, "unrecognized allocator 'pooling' in spec 'pooling' (known: caching, debug)") {
		t.Errorf("unknown spec: exit %d, %s", code, errs)
	}
}
