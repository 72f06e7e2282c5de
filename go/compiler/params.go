package compiler

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/vm"
	"github.com/gree-ml/gree/go/schemas/irpa"
)

// ParameterOptions are IREE's --iree-parameter-* flags.
type ParameterOptions struct {
	// Export is --iree-parameter-export=[scope=]path: every global with a
	// constant tensor initial value of at least ExportMinimumSize bytes
	// is written to the .irpa archive at path (its key is the global's
	// name) and initialized from #flow.parameter.named<"scope"::"name">
	// instead, so the module holds none of them.
	Export string
	// ExportMinimumSize is --iree-parameter-export-minimum-size (bytes).
	ExportMinimumSize int64
	// Splat is --iree-parameter-splat=path: an archive of zero splats for
	// every parameter the program references (to run it without the real
	// weights).
	Splat string
}

// ParseParameterSize parses --iree-parameter-export-minimum-size.
func ParseParameterSize(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("--iree-parameter-export-minimum-size=%s is not a byte count", s)
	}
	return n, nil
}

// applyParameterOptions exports constant globals and writes the splat
// archive the options ask for (after input conversion: globals hold their
// final types).
func applyParameterOptions(m *ir.Module, o ParameterOptions) error {
	if o.Export != "" {
		if err := exportParameters(m, o.Export, o.ExportMinimumSize); err != nil {
			return err
		}
	}
	if o.Splat != "" {
		return writeSplatArchive(m, o.Splat)
	}
	return nil
}

// globalBytes returns the little-endian bytes of a constant tensor initial
// value as the module would store them, and the element byte size, or ok
// false when the global has no such value.
func globalBytes(g *ir.Operation) (raw []byte, elem int, splat bool, ok bool, err error) {
	ta, _ := g.Attr("type").(*ir.TypeAttr)
	if ta == nil {
		return nil, 0, false, false, nil
	}
	t, isTensor := ta.Type.(*ir.RankedTensorType)
	if !isTensor || !ir.HasStaticShape(t) {
		return nil, 0, false, false, nil
	}
	var dense *ir.DenseElementsAttr
	switch a := g.Attr("initial_value").(type) {
	case *ir.DenseElementsAttr:
		dense = a
	case *ir.DenseResourceAttr:
		if dense, err = a.Elements(); err != nil {
			return nil, 0, false, false, ir.OpErrorf(g, "%v", err)
		}
	default:
		return nil, 0, false, false, nil
	}
	word, wok := vm.ElementTypeWord(t.Elem)
	if !wok {
		return nil, 0, false, false, nil
	}
	if raw, err = dense.Bytes(); err != nil {
		return nil, 0, false, false, ir.OpErrorf(g, "%v", err)
	}
	elem = int(word&0xff+7) / 8
	return raw, elem, dense.Splat, true, nil
}

func exportParameters(m *ir.Module, scopePath string, minSize int64) error {
	scope, path, ok := strings.Cut(scopePath, "=")
	if !ok {
		scope, path = "", scopePath
	}
	var w irpa.Writer
	var globals []*ir.Operation
	for _, g := range m.Body().Ops {
		if g.Name != "util.global" {
			continue
		}
		raw, elem, splat, ok, err := globalBytes(g)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		t := g.Attr("type").(*ir.TypeAttr).Type.(*ir.RankedTensorType)
		n, _ := ir.NumElements(t.Dims)
		size := n * int64(elem)
		if size < minSize {
			continue
		}
		name := symName(g)
		switch {
		case splat && irpa.ValidPattern(uint64(len(raw)), uint64(size)):
			if err := w.AddSplat(name, nil, raw, uint64(size)); err != nil {
				return err
			}
		case splat:
			w.AddData(name, nil, bytes.Repeat(raw, int(n)))
		default:
			w.AddData(name, nil, raw)
		}
		globals = append(globals, g)
	}
	if len(globals) == 0 {
		return nil
	}
	if err := w.WriteFile(path); err != nil {
		return fmt.Errorf("--iree-parameter-export=%s: %w", scopePath, err)
	}
	for _, g := range globals {
		t := g.Attr("type").(*ir.TypeAttr).Type
		ref := fmt.Sprintf("#flow.parameter.named<%s::%s>", strconv.Quote(scope), strconv.Quote(symName(g)))
		g.SetAttr("initial_value", &ir.ParameterAttr{Text: ref, Type: t})
	}
	return nil
}

// writeSplatArchive writes a zero splat for every parameter global.
func writeSplatArchive(m *ir.Module, path string) error {
	var w irpa.Writer
	seen := map[string]bool{}
	for _, g := range m.Body().Ops {
		iv := g.Attr("initial_value")
		if g.Name != "util.global" || !ir.IsParameterAttr(iv) {
			continue
		}
		ref, err := ir.ParseParameterAttr(iv)
		if err != nil {
			return ir.OpErrorf(g, "%v", err)
		}
		ta, _ := g.Attr("type").(*ir.TypeAttr)
		t, ok := ta.Type.(*ir.RankedTensorType)
		if ta == nil || !ok || !ir.HasStaticShape(t) {
			return ir.OpErrorf(g, "parameter '%s' needs a static tensor type for --iree-parameter-splat", ref.Key)
		}
		word, ok := vm.ElementTypeWord(t.Elem)
		if !ok {
			return ir.OpErrorf(g, "parameter '%s' has element type %s, which gree cannot hold", ref.Key, t.Elem)
		}
		n, _ := ir.NumElements(t.Dims)
		elem := uint64(word&0xff+7) / 8
		size := uint64(n) * elem
		pattern := make([]byte, elem)
		if !irpa.ValidPattern(elem, size) {
			pattern = []byte{0}
		}
		if seen[ref.Key] {
			continue
		}
		seen[ref.Key] = true
		if err := w.AddSplat(ref.Key, nil, pattern, size); err != nil {
			return err
		}
	}
	if err := w.WriteFile(path); err != nil {
		return fmt.Errorf("--iree-parameter-splat=%s: %w", path, err)
	}
	return nil
}

func symName(op *ir.Operation) string {
	if s, ok := op.Attr("sym_name").(*ir.StringAttr); ok {
		return s.Value
	}
	return ""
}
