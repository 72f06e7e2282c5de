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
// modules (kernel i in module i mod parts), each compiled on its own:
// entry symbols and check numbers are those of the single module.
func TranslateParts(kernels []*kir.Kernel, m Machine, parts int) ([]string, *llvmcpu.Executable, error) {
	parts = max(1, min(parts, len(kernels)))
	mods := make([]*module, parts)
	for p := range mods {
		mods[p] = newModule(m)
	}
	x := &llvmcpu.Executable{Triple: m.Triple, CPU: m.CPU, Features: m.Features, Required: requiredFeatures(m)}
	checks := 0
	for i, k := range kernels {
		if err := kir.Verify(k); err != nil {
			return nil, nil, fmt.Errorf("llvm-cpu: kernel %d: %w", i, err)
		}
		mo := mods[i%parts]
		mo.checkNo = checks
		sym := fmt.Sprintf("gree_entry_%d", i)
		if err := mo.kernel(k, i, sym); err != nil {
			return nil, nil, fmt.Errorf("llvm-cpu: kernel %d (@%s): %w", i, k.Name, err)
		}
		checks = mo.checkNo
		x.Entries = append(x.Entries, llvmcpu.Entry{Name: k.Name, Symbol: sym, NumPushConstants: k.NumPushConstants, NumBindings: len(k.Bindings)})
	}
	srcs := make([]string, parts)
	for p, mo := range mods {
		srcs[p] = mo.String()
	}
	return srcs, x, nil
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
