package llvmcpu

import (
	"fmt"
	"runtime"
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
	srcs := make([]string, len(mods))
	for p, mo := range mods {
		srcs[p] = mo.String()
	}
	return srcs, x, nil
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
