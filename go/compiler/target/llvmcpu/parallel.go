package llvmcpu

import (
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"

	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/schemas/llvmcpu"
)

// maxParts bounds the LLVM modules one executable is split into.
const maxParts = 16

// partsFor returns how many LLVM modules n kernels are compiled as: one
// per available CPU (each part repeats the helpers its kernels call, so
// there is no gain in more parts than threads), at most one per kernel.
func partsFor(n int) int {
	return max(1, min(runtime.GOMAXPROCS(0), maxParts, n))
}

// TranslateParts is Translate that spreads the kernels over parts LLVM
// modules, each compiled on its own. A kernel whose code is that of an
// earlier one (same-shaped dispatches: MobileNetV2's 137 are 76 distinct
// kernels) is not emitted again: its entry names the earlier symbol, and
// a failing check reports the earlier kernel's check number.
func TranslateParts(kernels []*kir.Kernel, m Machine, parts int) ([]string, *llvmcpu.Executable, error) {
	parts = max(1, min(parts, len(kernels)))
	mods := make([]*module, parts)
	for p := range mods {
		mods[p] = newModule(m)
	}
	cols := mayNeedColBlocks(kernels, mods[0].vl)
	for _, mo := range mods {
		mo.colBlocks = cols
	}
	x := &llvmcpu.Executable{Triple: m.Triple, CPU: m.CPU, Features: m.Features, Required: requiredFeatures(m)}
	checks, distinct := 0, 0
	seen := map[string]string{} // kernel code → entry symbol
	// Each distinct kernel goes to the module with the least LLVM code so
	// far: LLVM's time grows with the code, and a round robin left one
	// module with most of the large kernels (MobileNetV2: 1.2× speedup on
	// two threads instead of ~2×).
	load := make([]int, parts)
	for i, k := range kernels {
		if err := kir.Verify(k); err != nil {
			return nil, nil, fmt.Errorf("llvm-cpu: kernel %d: %w", i, err)
		}
		key, err := kernelKey(k, m)
		if err != nil {
			return nil, nil, fmt.Errorf("llvm-cpu: kernel %d (@%s): %w", i, k.Name, err)
		}
		sym, dup := seen[key]
		if !dup {
			sym = fmt.Sprintf("gree_entry_%d", i)
			seen[key] = sym
			p := 0
			for q := range load {
				if load[q] < load[p] {
					p = q
				}
			}
			load[p] += len(key)
			mo := mods[p]
			distinct++
			mo.checkNo = checks
			if err := mo.kernel(k, i, sym); err != nil {
				return nil, nil, fmt.Errorf("llvm-cpu: kernel %d (@%s): %w", i, k.Name, err)
			}
			checks = mo.checkNo
		}
		x.Entries = append(x.Entries, llvmcpu.Entry{Name: k.Name, Symbol: sym, NumPushConstants: k.NumPushConstants, NumBindings: len(k.Bindings)})
	}
	if distinct < parts {
		mods = mods[:distinct] // the empty ones: each took one kernel until then
	}
	shareHelpers(mods)
	srcs := make([]string, len(mods))
	for p, mo := range mods {
		srcs[p] = mo.String()
	}
	return srcs, x, nil
}

// shareHelpers compiles each Contract microkernel once per executable.
// A microkernel is an entry helper W and its row kernel W.rows (thousands
// of lines: most of LLVM's work on a transformer's module); every part
// whose kernels call W defined both, internal, so that parts ran in
// parallel but each repeated them. Now one part, the owner, defines W
// with hidden visibility (the linker resolves calls from the other parts'
// objects; it is not exported) and W.rows internal, and the others only
// declare W. Owners balance the parts' LLVM text, the largest placed
// first; an owner that has no kernel calling W gets the declarations and
// small helpers W uses from a part that has.
//
// Internal, W had its arguments that every call in its part passes as the
// same constant propagated into it (C's and A's unit column strides, no
// residual, ...), which removed whole paths of W.rows: those arguments, the
// same constant in every call of every part, are constants in the shared
// definition (specialize), so that its code is what each part had.
func shareHelpers(mods []*module) {
	if len(mods) < 2 {
		return
	}
	type unit struct {
		name, text, rows string
		src              int          // a part that defines it
		def              map[int]bool // the parts that define it, with what it uses
		in               map[int]bool // the parts that refer to it
		owner            int
	}
	// isUnit reports whether n names a microkernel's entry in mo.
	isUnit := func(mo *module, n string) bool {
		rows, ok := mo.decls[n+".rows"]
		return ok && isInternalFn(mo.decls[n]) && isInternalFn(rows)
	}
	byName := map[string]*unit{}
	var units []*unit
	load := make([]int, len(mods))
	for p, mo := range mods {
		load[p] = mo.body.Len()
		for _, n := range mo.order {
			t := mo.decls[n]
			if !isUnit(mo, n) {
				if w, isRows := strings.CutSuffix(n, ".rows"); !isRows || !isUnit(mo, w) {
					load[p] += len(t) // not part of a unit
				}
				continue
			}
			rows := mo.decls[n+".rows"]
			if u := byName[n]; u != nil {
				if u.text == t && u.rows == rows {
					u.in[p], u.def[p] = true, true
				} else {
					u.text = "" // the same name with other code: leave it alone
				}
				continue
			}
			u := &unit{name: n, text: t, rows: rows, src: p, def: map[int]bool{p: true}, in: map[int]bool{p: true}}
			byName[n] = u
			units = append(units, u)
		}
	}
	sort.SliceStable(units, func(i, j int) bool { return len(units[i].rows) > len(units[j].rows) })
	for _, u := range units {
		if u.text == "" {
			continue
		}
		u.owner = 0
		for p := range mods {
			if load[p] < load[u.owner] {
				u.owner = p
			}
		}
		load[u.owner] += len(u.text) + len(u.rows)
	}
	// An owner without the unit takes what its part declares (intrinsics,
	// small helpers; other units as references), repeated until no owner
	// lacks anything.
	for changed := true; changed; {
		changed = false
		for _, u := range units {
			if u.text == "" || u.def[u.owner] {
				continue
			}
			o, src := mods[u.owner], mods[u.src]
			for _, n := range src.order {
				if _, ok := o.decls[n]; ok {
					continue
				}
				if v := byName[n]; v != nil && v.text != "" {
					v.in[u.owner] = true
					o.declare(n, "") // set below
					continue
				}
				o.declare(n, src.decls[n])
			}
			u.in[u.owner], u.def[u.owner] = true, true
			changed = true
		}
	}
	consts := argConstants(mods)
	for _, u := range units {
		if u.text == "" {
			continue
		}
		header, _, _ := strings.Cut(u.text, "{")
		decl := "declare hidden " + strings.TrimSpace(strings.TrimPrefix(header, "define internal "))
		def := "define hidden " + strings.TrimPrefix(specialize(u.text, u.name, consts[u.name]), "define internal ")
		for p := range u.in {
			mo := mods[p]
			if p == u.owner {
				mo.decls[u.name] = def
				continue
			}
			mo.decls[u.name] = decl
			if _, ok := mo.decls[u.name+".rows"]; ok {
				mo.decls[u.name+".rows"] = "" // only W calls it
			}
		}
	}
}

// isInternalFn reports whether a module's helper text is one internal
// function, not to be inlined everywhere.
func isInternalFn(t string) bool {
	if !strings.HasPrefix(t, "define internal ") || strings.Count(t, "\ndefine ") != 0 {
		return false
	}
	header, _, ok := strings.Cut(t, "{")
	return ok && !strings.Contains(header, "alwaysinline") && !strings.Contains(header, "\n")
}

// fnHeader splits a function definition's text at its parameter list:
// the text before, the parameters ("ptr %A", ...) and the text after.
func fnHeader(text, name string) (before string, params []string, after string, ok bool) {
	header, _, _ := strings.Cut(text, "{")
	open := strings.Index(header, "@"+name+"(")
	end := strings.LastIndex(header, ")")
	if open < 0 || end < open {
		return "", nil, "", false
	}
	start := open + len(name) + 2
	return text[:start], strings.Split(header[start:end], ", "), text[end:], true
}

// argConstants returns, for each function called in mods, the literal
// each of its arguments has in every call ("" where none is known, "-"
// where calls differ or pass a value computed at run time). An argument
// that is a parameter of the calling helper has that parameter's
// constant, so constants pass through helpers as LLVM's interprocedural
// propagation passes them.
func argConstants(mods []*module) map[string][]string {
	type site struct {
		caller, callee string
		args           []string
	}
	var sites []site
	paramsOf := map[string][]string{}
	scan := func(caller, t string) {
		for rest := t; ; {
			i := strings.Index(rest, "call void @")
			if i < 0 {
				return
			}
			rest = rest[i+len("call void @"):]
			callee, args, ok := strings.Cut(rest, "(")
			if !ok {
				return
			}
			sites = append(sites, site{caller, callee, splitArgs(args)})
		}
	}
	for _, mo := range mods {
		scan("", mo.body.String())
		for _, n := range mo.order {
			t := mo.decls[n]
			if strings.HasPrefix(t, "define ") {
				if _, params, _, ok := fnHeader(t, n); ok {
					paramsOf[n] = params
				}
				scan(n, t)
			}
		}
	}
	consts := map[string][]string{}
	for round := 0; round < 8; round++ {
		next := map[string][]string{}
		for _, st := range sites {
			c := next[st.callee]
			if c == nil {
				c = make([]string, len(st.args))
				next[st.callee] = c
			}
			if len(c) != len(st.args) {
				for k := range c {
					c[k] = "-"
				}
				continue
			}
			for k, a := range st.args {
				_, v, _ := strings.Cut(a, " ")
				if name, isParam := strings.CutPrefix(v, "%"); isParam && !strings.Contains(v, " ") {
					v = "-"
					for q, p := range paramsOf[st.caller] {
						if _, pn, _ := strings.Cut(p, " %"); pn == name && q < len(consts[st.caller]) {
							v = consts[st.caller][q]
						}
					}
				} else if !isLiteral(v) {
					v = "-"
				}
				switch {
				case v == "":
				case c[k] == "":
					c[k] = v
				case c[k] != v:
					c[k] = "-"
				}
			}
		}
		stable := len(next) == len(consts)
		for n, c := range next {
			if strings.Join(c, "\x00") != strings.Join(consts[n], "\x00") {
				stable = false
			}
		}
		consts = next
		if stable {
			break
		}
	}
	return consts
}

// splitArgs returns the arguments of a call whose list starts s (after
// its opening parenthesis), split at the commas outside parentheses,
// brackets and braces.
func splitArgs(s string) []string {
	var args []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[', '{', '<':
			depth++
		case ']', '}', '>':
			depth--
		case ')':
			if depth == 0 {
				return append(args, strings.TrimSpace(s[start:i]))
			}
			depth--
		case ',':
			if depth == 0 {
				args = append(args, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	return nil // no end: no arguments known
}

// isLiteral reports whether v is an LLVM literal specialize may copy: an
// integer, null, or a float in decimal or hexadecimal form.
func isLiteral(v string) bool {
	if v == "null" {
		return true
	}
	if h, ok := strings.CutPrefix(v, "0x"); ok {
		return h != "" && strings.Trim(h, "0123456789ABCDEF") == ""
	}
	v = strings.TrimPrefix(v, "-")
	return v != "" && strings.Trim(v, "0123456789.e+-") == "" && v[0] >= '0' && v[0] <= '9'
}

// specialize returns the definition text of helper name with each
// argument that is the same literal in every call (consts, from
// argConstants) defined as that constant at its entry, the parameter
// renamed: what LLVM's interprocedural constant propagation did for the
// helper while it was internal.
func specialize(text, name string, consts []string) string {
	before, params, after, ok := fnHeader(text, name)
	if !ok || len(consts) != len(params) {
		return text
	}
	var defs strings.Builder
	for k, p := range params {
		typ, pname, ok := strings.Cut(p, " %")
		if !ok || consts[k] == "" || consts[k] == "-" || strings.Contains(typ, " ") {
			continue
		}
		params[k] = typ + " %" + pname + ".arg"
		fmt.Fprintf(&defs, "  %%%s = select i1 true, %s %s, %s %s\n", pname, typ, consts[k], typ, consts[k])
	}
	const entry = "{\nentry:\n"
	if defs.Len() == 0 || !strings.HasPrefix(strings.TrimLeft(after[1:], " #0123456789"), entry) {
		return text
	}
	j := strings.Index(after, entry) + len(entry)
	return before + strings.Join(params, ", ") + after[:j] + defs.String() + after[j:]
}

// kernelKey returns the LLVM code of k alone, with fixed names and check
// numbers: kernels with the same key compile to the same machine code.
func kernelKey(k *kir.Kernel, m Machine) (string, error) {
	kc := *k
	kc.Name = ""
	mo := newModule(m)
	if err := mo.kernel(&kc, 0, "e"); err != nil {
		return "", err
	}
	return mo.body.String(), nil
}

// compileParts compiles each module's IR on its own goroutine (LLVM's C
// API is safe across threads with one context per thread) and returns the
// object files in order.
func compileParts(srcs []string, m Machine) ([][]byte, error) {
	objs := make([][]byte, len(srcs))
	errs := make([]error, len(srcs))
	var wg sync.WaitGroup
	for i, src := range srcs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			objs[i], errs[i] = compileIR(src, m, nil)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return objs, nil
}
