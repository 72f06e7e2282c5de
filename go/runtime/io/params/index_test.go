package params

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/gree-ml/gree/go/status"
)

func wantCode(t *testing.T, err error, code status.Code, substrs ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("no error; want %v containing %q", code, substrs)
	}
	if status.CodeOf(err) != code {
		t.Errorf("code %v, want %v: %v", status.CodeOf(err), code, err)
	}
	for _, s := range substrs {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not contain %q", err, s)
		}
	}
}

func TestWrapMemoryReleasesOnce(t *testing.T) {
	released := 0
	data := []byte("0123456789")
	h := WrapMemory("", data, AccessRead, func() { released++ })
	x := NewIndex()
	if err := x.AddFile("k", h, 2, 5, []byte("md")); err != nil {
		t.Fatal(err)
	}
	wantCode(t, x.AddFile("k", h, 8, 5, nil), status.OutOfRange, "'k'", "[8, +5)", "10 bytes of host memory")
	h.Release()
	if released != 0 {
		t.Fatal("released while the index holds the handle")
	}
	e, err := x.Entry(0)
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, e.Length)
	if err := e.Handle.ReadAt(got, e.Offset); err != nil || string(got) != "23456" || string(e.Metadata) != "md" {
		t.Fatalf("entry reads %q (%v), metadata %q", got, err, e.Metadata)
	}
	x.Release()
	x.Release() // a second release does nothing
	if released != 1 {
		t.Fatalf("release ran %d times, want 1", released)
	}
	wantCode(t, x.AddSplat("s", []byte{1}, 4, nil), status.FailedPrecondition, "released")
	wantCode(t, h.Retain(), status.FailedPrecondition)
}

func TestSplatEntries(t *testing.T) {
	x := NewIndex()
	defer x.Release()
	if err := x.AddSplat("w", []byte{1, 2}, 8, nil); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct {
		pattern []byte
		length  uint64
	}{{nil, 4}, {[]byte{1, 2, 3}, 9}, {make([]byte, 20), 40}, {[]byte{1, 2, 3, 4}, 6}} {
		wantCode(t, x.AddSplat("bad", bad.pattern, bad.length, nil), status.InvalidArgument, "'bad'", "1, 2, 4, 8 or 16")
	}
	if x.Len() != 1 {
		t.Fatalf("%d entries after rejected splats", x.Len())
	}
	wantCode(t, func() error { _, err := x.Entry(1); return err }(), status.OutOfRange, "entry 1 out of range (have 1 entries")
}

func TestIndexLoadsEveryFormat(t *testing.T) {
	for name, data := range map[string][]byte{"p.irpa": sampleIRPA(t), "p.safetensors": sampleSafetensors(t), "p.gguf": sampleGGUF(t)} {
		path := writeTemp(t, name, data)
		for _, mmap := range []bool{true, false} {
			h, err := OpenFile(path, mmap)
			if err != nil {
				t.Fatal(err)
			}
			x := NewIndex()
			if err := x.Load(h, ""); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			h.Release() // the index holds it
			e := x.Lookup("bias")
			if e == nil || e.Kind != StorageFile || e.Handle != h {
				t.Fatalf("%s: bias entry %+v", name, e)
			}
			got := make([]byte, e.Length)
			if err := e.Handle.ReadAt(got, e.Offset); err != nil || !bytes.Equal(got, f32bytes(0.5, -0.5, 0.25)) {
				t.Errorf("%s (mmap %v): bias reads %v (%v)", name, mmap, got, err)
			}
			x.Release()
		}
	}
}

func TestIndexLoadFromDescriptor(t *testing.T) {
	path := writeTemp(t, "p.irpa", sampleIRPA(t))
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := OpenFD(int(f.Fd()), AccessRead)
	f.Close() // the handle has its own descriptor
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	if h.Type() != HandleFD || h.HostAllocation() != nil || !strings.Contains(h.Name(), path) {
		t.Fatalf("handle %s: type %d", h.Name(), h.Type())
	}
	x := NewIndex()
	defer x.Release()
	if err := x.Load(h, FormatIRPA); err != nil {
		t.Fatal(err)
	}
	e := x.Lookup("bias")
	got := make([]byte, e.Length)
	if err := e.Handle.ReadAt(got, e.Offset); err != nil || !bytes.Equal(got, f32bytes(0.5, -0.5, 0.25)) || string(e.Metadata) != "meta" {
		t.Fatalf("bias reads %v (%v), metadata %q", got, err, e.Metadata)
	}
	// The file shrinks under the descriptor: reads are DATA_LOSS naming it.
	if err := os.Truncate(path, int64(e.Offset)+4); err != nil {
		t.Fatal(err)
	}
	wantCode(t, e.Handle.ReadAt(got, e.Offset), status.DataLoss, path, "truncated")
	_, err = OpenFD(-1, AccessRead)
	wantCode(t, err, status.InvalidArgument, "-1")
}

func TestIndexLoadErrorsNameFileAndEntry(t *testing.T) {
	data := sampleIRPA(t)
	x := NewIndex()
	defer x.Release()
	// Cut inside the bias entry's data.
	f, _ := FromBytes("p.irpa", data)
	bias := f.Lookup("bias")
	h := WrapMemory("cut.irpa", data[:bias.Offset+2], AccessRead, nil)
	defer h.Release()
	wantCode(t, x.Load(h, ""), status.DataLoss, "cut.irpa", "'bias'", "truncated")
	// A format that does not match the bytes.
	wantCode(t, x.Load(WrapMemory("p.bin", data, AccessRead, nil), FormatGGUF), status.InvalidArgument, "p.bin (gguf)", "magic")
	wantCode(t, x.Load(WrapMemory("p.bin", []byte("hello world"), AccessRead, nil), ""), status.InvalidArgument, "p.bin", "give the format")
	if x.Len() != 0 {
		t.Fatalf("failed loads added %d entries", x.Len())
	}
	_, err := ParseFormat("onnx")
	wantCode(t, err, status.InvalidArgument, "'onnx'", "irpa, safetensors and gguf")
	if f, err := ParseFormat(".GGUF"); f != FormatGGUF || err != nil {
		t.Fatalf("ParseFormat(.GGUF) = %q, %v", f, err)
	}
}

func TestWriteArchiveRoundTrip(t *testing.T) {
	dir := t.TempDir()
	src := NewIndex()
	defer src.Release()
	h := WrapMemory("", f32bytes(1, 2, 3), AccessRead, nil)
	if err := src.AddFile("data", h, 4, 8, []byte("TENSOR")); err != nil {
		t.Fatal(err)
	}
	h.Release()
	if err := src.AddSplat("ones", f32bytes(1), 4096, nil); err != nil {
		t.Fatal(err)
	}
	for _, off := range []uint64{0, 100} {
		path := filepath.Join(dir, "out.irpa")
		target := NewIndex()
		if err := src.WriteArchive(path, off, target); err != nil {
			t.Fatal(err)
		}
		if target.Len() != 2 {
			t.Fatalf("offset %d: target has %d entries", off, target.Len())
		}
		d := target.Lookup("data")
		got := make([]byte, d.Length)
		if err := d.Handle.ReadAt(got, d.Offset); err != nil || !bytes.Equal(got, f32bytes(2, 3)) || string(d.Metadata) != "TENSOR" {
			t.Fatalf("offset %d: data reads %v (%v) metadata %q", off, got, err, d.Metadata)
		}
		if d.Offset%DefaultDataAlignment != off%DefaultDataAlignment {
			t.Errorf("offset %d: data at %d is not aligned within the archive", off, d.Offset)
		}
		if s := target.Lookup("ones"); s.Kind != StorageSplat || s.Length != 4096 || !bytes.Equal(s.Pattern, f32bytes(1)) {
			t.Errorf("offset %d: splat %+v", off, s)
		}
		// The archive's own entries read from it: writing over it is refused.
		wantCode(t, target.WriteArchive(path, 0, nil), status.InvalidArgument, "reads from it", "'data'")
		target.Release()
	}
	wantCode(t, src.WriteArchive(filepath.Join(dir, "no", "such", "dir.irpa"), 0, nil), status.PermissionDenied, "cannot create")
}

func TestProviderSetResolves(t *testing.T) {
	a, b := NewIndex(), NewIndex()
	mem := f32bytes(1, 2, 3, 4)
	h := WrapMemory("", mem, AccessRead, nil)
	if err := a.AddFile("w", h, 0, 16, nil); err != nil {
		t.Fatal(err)
	}
	h.Release()
	if err := b.AddSplat("z", []byte{7}, 5, nil); err != nil {
		t.Fatal(err)
	}
	pa, _ := NewIndexProvider("a", a)
	pb, _ := NewIndexProvider("", b)
	a.Release()
	b.Release() // the providers hold them
	set := ProviderSet{pa, pb}
	got, err := set.Parameter("a", "w", 16, 4)
	if err != nil || !bytes.Equal(got, mem) {
		t.Fatalf("a::w = %v, %v", got, err)
	}
	if uintptr(unsafe.Pointer(&got[0]))%64 != 0 || &got[0] == &mem[0] {
		t.Errorf("a::w is not an aligned copy")
	}
	got[0] = 99 // the copy is the caller's
	if mem[0] == 99 {
		t.Fatal("the parameter aliases the caller's memory")
	}
	if got, err := set.Parameter("", "z", 5, 1); err != nil || !bytes.Equal(got, []byte{7, 7, 7, 7, 7}) {
		t.Fatalf("z = %v, %v", got, err)
	}
	_, err = set.Parameter("c", "w", 16, 4)
	wantCode(t, err, status.NotFound, "'c::w'", "scope 'c'", "'a', '' (global)")
	_, err = set.Parameter("a", "v", 16, 4)
	wantCode(t, err, status.NotFound, "'a::v'", "no entry 'v'")
	_, err = set.Parameter("a", "w", 32, 4)
	wantCode(t, err, status.InvalidArgument, "'a::w' is 16 bytes", "expects 32")
	pa.Release()
	pb.Release()
	_, err = set.Parameter("a", "w", 16, 4)
	wantCode(t, err, status.NotFound) // the released index has no entries
	_, err = NewIndexProvider("x", a)
	wantCode(t, err, status.FailedPrecondition, "released")
}
