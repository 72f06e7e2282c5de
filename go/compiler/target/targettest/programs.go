package targettest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gree-ml/gree/go/compiler/codegen"
	"github.com/gree-ml/gree/go/compiler/flow"
	"github.com/gree-ml/gree/go/compiler/input"
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/kir"
	"github.com/gree-ml/gree/go/compiler/parser"
)

// ProgramDispatches compiles the MLIR file at path through the input and
// flow pipelines and lowers each dispatch region with st, naming them d0,
// d1, … in order; legalize, when not nil, then rewrites each kernel (a
// GPU target's legalization). It returns the dispatches that lowered and
// the failures of the others, joined, naming each dispatch.
func ProgramDispatches(path string, st codegen.Strategy, legalize func(*kir.Kernel) error) ([]*codegen.Dispatch, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m, err := parser.Parse(filepath.Base(path), src)
	if err != nil {
		return nil, err
	}
	if err := input.Run(m); err != nil {
		return nil, err
	}
	if err := flow.Run(m); err != nil {
		return nil, err
	}
	var ds []*codegen.Dispatch
	var errs []string
	n := 0
	m.Op.Walk(func(op *ir.Operation) bool {
		if op.Name != flow.RegionName {
			return true
		}
		name := fmt.Sprintf("d%d", n)
		n++
		d, err := codegen.Lower(op, name, st)
		if err == nil && legalize != nil {
			err = legalize(d.Kernel)
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", name, err))
			return false
		}
		ds = append(ds, d)
		return false
	})
	if len(errs) > 0 {
		return ds, fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return ds, nil
}
