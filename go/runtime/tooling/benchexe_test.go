package tooling

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gree-ml/gree/go/compiler"
	gree "github.com/gree-ml/gree/go/runtime"
	"github.com/gree-ml/gree/go/runtime/hal"
)

const mulProgram = `func.func @mul(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = arith.mulf %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}`

func mulModule(t *testing.T) string {
	t.Helper()
	out, err := compiler.Compile([]byte(mulProgram), compiler.Options{Filename: "mul.mlir", Backends: []string{"vmvx"}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "mul.vmfb")
	if err := os.WriteFile(path, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestBenchmarkedDispatchComputes: the batch the tool times really runs
// the entry point on the bindings (the output binding holds the product).
func TestBenchmarkedDispatchComputes(t *testing.T) {
	o := BenchExeOptions{File: mulModule(t), Executable: -1}
	format, data, err := loadExecutable(o)
	if err != nil || format != "vmvx-bytecode" {
		t.Fatalf("loadExecutable: %q, %v", format, err)
	}
	dev, err := gree.Drivers().CreateDeviceByURI("local-sync")
	if err != nil {
		t.Fatal(err)
	}
	defer dev.Close()
	exe, err := dev.PrepareExecutable(format, data)
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	entry, err := entryOrdinal(exe, "mul_dispatch_0")
	if err != nil || entry != 0 {
		t.Fatalf("entry %d, %v", entry, err)
	}
	refs, release, err := deviceBindings(dev, []string{"4xf32=0", "4xf32=1,2,3,4", "4xf32=5,6,7,8"})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	cb, err := recordBatch(exe, entry, [3]int64{1, 1, 1}, nil, refs, 3)
	if err != nil {
		t.Fatal(err)
	}
	defer cb.Release()
	if _, err := measureBatches(dev, cb, time.Millisecond); err != nil {
		t.Fatal(err)
	}
	out, err := hal.ReadBuffer(dev, refs[0].Buffer, 0, 16)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float32{5, 12, 21, 32} {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[4*i:])); got != want {
			t.Errorf("out[%d] = %v, want %v", i, got, want)
		}
	}
}

func TestBenchmarkExecutableTableAndErrors(t *testing.T) {
	path := mulModule(t)
	var stdout, stderr bytes.Buffer
	o := BenchExeOptions{Device: "local-task", File: path, Executable: -1, Bindings: []string{"4xf32=0", "4xf32=1", "4xf32=2"},
		WorkgroupCounts: []string{"1,1,1", "2,1,1"}, BatchSize: 4, MinTime: 5 * time.Millisecond, Repetitions: 2}
	if code := RunBenchmarkExecutable(o, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var rows []string
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "BM_") {
			rows = append(rows, strings.Fields(l)[0])
		}
	}
	if len(rows) != 10 || rows[0] != "BM_dispatch_1x1x1/process_time/real_time" || rows[9] != "BM_dispatch_2x1x1/process_time/real_time_stddev" {
		t.Errorf("rows %v", rows)
	}
	// An executable payload, named by IREE's format name.
	_, data, _ := loadExecutable(BenchExeOptions{File: path, Executable: -1})
	raw := filepath.Join(t.TempDir(), "mul.vmvx")
	os.WriteFile(raw, data, 0o644)
	stdout.Reset()
	o = BenchExeOptions{File: raw, Format: "vmvx-bytecode-fb", Bindings: []string{"4xf32=0", "4xf32=1", "4xf32=2"}, BatchSize: 1, MinTime: time.Millisecond}
	if code := RunBenchmarkExecutable(o, &stdout, &stderr); code != 0 || !strings.Contains(stdout.String(), "BM_dispatch_1x1x1") {
		t.Errorf("raw payload: exit %d, %s%s", code, stdout.String(), stderr.String())
	}
	for _, c := range []struct {
		o    BenchExeOptions
		want string
	}{
		{BenchExeOptions{File: path, Executable: 3}, "has no executable 3"},
		{BenchExeOptions{File: path, Executable: -1, EntryPoint: "7"}, "out of range"},
		{BenchExeOptions{File: path, Executable: -1, WorkgroupCounts: []string{"1,1"}}, "expected x,y,z"},
		{BenchExeOptions{File: path, Executable: -1, Bindings: []string{"f32"}}, "parsing --binding"},
		{BenchExeOptions{File: path, Executable: -1, ExecutableConstants: []string{"1"}}, "specialization constants"},
		{BenchExeOptions{File: path + ".missing"}, "reading --executable_file"},
		{BenchExeOptions{File: path, Format: "no-such-format", Executable: -1}, "no executable"},
		{BenchExeOptions{File: raw}, "pass --executable_format"},
	} {
		stderr.Reset()
		if code := RunBenchmarkExecutable(c.o, &stdout, &stderr); code != 1 || !strings.Contains(stderr.String(), c.want) {
			t.Errorf("%+v: exit %d, %q; want %q", c.o, code, stderr.String(), c.want)
		}
	}
}
