package vm

import (
	"errors"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// counterHost is a host module "h" whose state is a per-context counter:
// h.add(a, b) returns a+b+counter and bumps the counter; h.fail fails with
// the error it is given; h.bad returns an f32 where its signature says i32,
// h.wide an i64 too wide for it, h.i64 an i64 that fits.
type counterHost struct {
	made, freed, destroyed int
	fail                   error
}

func (ch *counterHost) module(t *testing.T) *HostModule {
	t.Helper()
	i32 := []module.Kind{module.KindI32}
	h, err := NewHostModule("h", []HostFunc{
		{Name: "add", Args: []module.Kind{module.KindI32, module.KindI32}, Results: i32, Call: func(state any, args []Value) ([]Value, error) {
			n := state.(*int)
			*n++
			return []Value{I32(int32(args[0].I + args[1].I + int64(*n-1)))}, nil
		}},
		{Name: "fail", Call: func(any, []Value) ([]Value, error) { return nil, ch.fail }},
		{Name: "bad", Results: i32, Call: func(any, []Value) ([]Value, error) { return []Value{F32(1)}, nil }},
		{Name: "wide", Results: i32, Call: func(any, []Value) ([]Value, error) { return []Value{I64(1 << 40)}, nil }},
		{Name: "i64", Results: i32, Call: func(any, []Value) ([]Value, error) { return []Value{I64(-7)}, nil }},
	}, HostHooks{
		NewState:  func(*Context) (any, error) { ch.made++; return new(int), nil },
		FreeState: func(any) { ch.freed++ },
		Destroy:   func() { ch.destroyed++ },
	})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// importer is a bytecode module "m" whose f(a, b) returns h.add(a, b)*10
// and whose g calls h.fail.
func importer() *module.Module {
	i32 := []module.Kind{module.KindI32}
	return &module.Module{
		Name: "m",
		Imports: []module.Import{
			{Module: "h", Name: "add", Args: []module.Kind{module.KindI32, module.KindI32}, Results: i32},
			{Module: "h", Name: "fail"},
		},
		Functions: []module.Function{{
			Name: "f", Args: []module.Kind{module.KindI32, module.KindI32}, Results: i32,
			Regs: []module.Kind{module.KindI32, module.KindI32, module.KindI32, module.KindI32, module.KindI32},
			Code: []module.Instr{
				{Op: module.OpCallImport, Index: 0, Src: []int32{0, 1}, Dst: []int32{2}},
				{Op: module.OpConstI, Type: module.TypeI32, Dst: []int32{3}, Imm: 10},
				{Op: module.OpArith, Sub: uint8(module.ArithMul), Type: module.TypeI32, Dst: []int32{4}, Src: []int32{2, 3}},
				{Op: module.OpReturn, Src: []int32{4}},
			},
		}, {
			Name: "g",
			Code: []module.Instr{{Op: module.OpCallImport, Index: 1}, {Op: module.OpReturn}},
		}},
		Exports: []module.Export{{Name: "f", Function: 0}, {Name: "g", Function: 1}},
	}
}

func hostContext(t *testing.T, h *HostModule) *Context {
	t.Helper()
	c := NewContext(nil)
	if err := c.RegisterHost(h); err != nil {
		t.Fatal(err)
	}
	mod, err := LoadModule(module.Encode(importer()))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Register(mod); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHostModuleImportedByBytecode: a bytecode module calls a host
// function through its import, each context with a state of its own; the
// states are freed when their contexts close and the module is destroyed
// with its last reference.
func TestHostModuleImportedByBytecode(t *testing.T) {
	ch := &counterHost{}
	h := ch.module(t)
	c1, c2 := hostContext(t, h), hostContext(t, h)
	for i, want := range []int64{50, 60} {
		res, err := c1.Invoke("m", "f", []Value{I32(2), I32(3)})
		if err != nil || len(res) != 1 || res[0].I != want {
			t.Fatalf("call %d in context 1: f(2, 3) = %v, %v; want %d", i, res, err, want)
		}
	}
	if res, err := c2.Invoke("m", "f", []Value{I32(2), I32(3)}); err != nil || res[0].I != 50 {
		t.Fatalf("context 2 has its own state: f(2, 3) = %v, %v; want 50", res, err)
	}
	// Host functions can be invoked directly too.
	if res, err := c2.Invoke("h", "add", []Value{I32(1), I32(1)}); err != nil || res[0].I != 3 {
		t.Fatalf("h.add(1, 1) in context 2 = %v, %v; want 3", res, err)
	}
	if ch.made != 2 || ch.freed != 0 {
		t.Fatalf("states made %d, freed %d; want 2, 0", ch.made, ch.freed)
	}
	h.Release() // the creator's reference: the contexts still hold theirs
	if ch.destroyed != 0 || h.Destroyed() {
		t.Fatal("module destroyed while contexts use it")
	}
	c1.Close()
	if ch.freed != 1 || ch.destroyed != 0 {
		t.Fatalf("after closing context 1: freed %d, destroyed %d; want 1, 0", ch.freed, ch.destroyed)
	}
	c2.Close()
	c2.Close()
	if ch.freed != 2 || ch.destroyed != 1 {
		t.Fatalf("after closing both: freed %d, destroyed %d; want 2, 1", ch.freed, ch.destroyed)
	}
	if err := NewContext(nil).RegisterHost(h); status.CodeOf(err) != status.FailedPrecondition {
		t.Errorf("registering a destroyed module: %v; want FAILED_PRECONDITION", err)
	}
}

// TestHostModuleErrors: a host function's error reaches the caller through
// the bytecode call with its code; results and arguments that break the
// signature, imports with another signature, unknown functions and bad
// definitions are errors naming the cause.
func TestHostModuleErrors(t *testing.T) {
	ch := &counterHost{fail: status.New(status.Unknown, "boom from the host")}
	h := ch.module(t)
	defer h.Release()
	c := hostContext(t, h)
	defer c.Close()
	_, err := c.Invoke("m", "g", nil)
	if status.CodeOf(err) != status.Unknown || !errors.Is(err, ch.fail) {
		t.Errorf("failing host function: %v; want the host's UNKNOWN error", err)
	}
	if _, err := c.Invoke("h", "bad", nil); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "h.bad result 0: must be an i32, got an f32") {
		t.Errorf("result of the wrong kind: %v", err)
	}
	if _, err := c.Invoke("h", "wide", nil); status.CodeOf(err) != status.OutOfRange {
		t.Errorf("i64 result too wide for its i32: %v", err)
	}
	if res, err := c.Invoke("h", "i64", nil); err != nil || res[0] != I32(-7) {
		t.Errorf("i64 result for an i32: %v, %v; want i32 -7", res, err)
	}
	if _, err := c.Invoke("h", "add", []Value{F32(1), I32(1)}); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("argument of the wrong kind: %v", err)
	}
	if _, err := c.Invoke("h", "nope", nil); status.CodeOf(err) != status.NotFound {
		t.Errorf("unknown host function: %v", err)
	}
	if err := c.RegisterHost(h); status.CodeOf(err) != status.AlreadyExists {
		t.Errorf("registering twice: %v", err)
	}
	// An importer expecting another signature is refused at registration.
	bad := &module.Module{
		Name:      "m2",
		Imports:   []module.Import{{Module: "h", Name: "add", Args: []module.Kind{module.KindI64}}},
		Functions: []module.Function{{Name: "f", Code: []module.Instr{{Op: module.OpReturn}}}},
	}
	mod, err := LoadModule(module.Encode(bad))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Register(mod); status.CodeOf(err) != status.InvalidArgument || !strings.Contains(err.Error(), "h.add") {
		t.Errorf("import with another signature: %v", err)
	}
	call := func(any, []Value) ([]Value, error) { return nil, nil }
	if _, err := NewHostModule("x", []HostFunc{{Name: "a", Call: call}, {Name: "a", Call: call}}, HostHooks{}); status.CodeOf(err) != status.AlreadyExists {
		t.Errorf("duplicate function: %v", err)
	}
	if _, err := NewHostModule("a.b", nil, HostHooks{}); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("dotted module name: %v", err)
	}
	// A state that cannot be made fails the registration and keeps no
	// reference.
	fh, err := NewHostModule("s", nil, HostHooks{NewState: func(*Context) (any, error) { return nil, errors.New("no state") }})
	if err != nil {
		t.Fatal(err)
	}
	if err := NewContext(nil).RegisterHost(fh); err == nil || !strings.Contains(err.Error(), "no state") {
		t.Errorf("failing NewState: %v", err)
	}
	if fh.Release(); !fh.Destroyed() {
		t.Error("a failed registration kept a reference")
	}
}

func TestParseCConv(t *testing.T) {
	I, F, r := module.KindI32, module.KindF64, module.KindRef
	for _, c := range []struct {
		cc            string
		args, results []module.Kind
	}{
		{"0v", nil, nil},
		{"0v_v", nil, nil},
		{"0ii_i", []module.Kind{I, I}, []module.Kind{I}},
		{"0rF", []module.Kind{r, F}, nil},
		{"0v_rr", nil, []module.Kind{r, r}},
	} {
		a, res, err := ParseCConv(c.cc)
		if err != nil || !sameKinds(a, c.args) || !sameKinds(res, c.results) {
			t.Errorf("ParseCConv(%q) = %v, %v, %v; want %v, %v", c.cc, a, res, err, c.args, c.results)
		}
	}
	for cc, code := range map[string]status.Code{"ii_i": status.InvalidArgument, "0x": status.InvalidArgument, "0CiD": status.Unimplemented} {
		if _, _, err := ParseCConv(cc); status.CodeOf(err) != code {
			t.Errorf("ParseCConv(%q): %v; want %v", cc, err, code)
		}
	}
}
