package onnx

import (
	"fmt"
	"strings"
)

// Externalized parameters (iree-import-onnx --externalize-params, IREE's
// large-model workflow): a floating-point initializer with at least
// Options.ParamsMinElements elements is not printed as an onnx.Constant
// but becomes a util.global initialized from #flow.parameter.named
// <scope::name>, loaded where the graph uses it; its bytes go to a
// parameter archive (Imported.Params) that iree-run-module --parameters
// supplies at run time.
//
// With Options.ExternalizeInputs, the main graph's inputs from index
// Options.InputParamsFrom on (counting the inputs that are not
// initializers, as IREE's --externalize-inputs-threshold does) become
// parameter globals of the same scope too: the function no longer takes
// them as arguments, and the archive that supplies them at run time is the
// user's (their values are not in the model).

// Param is one externalized initializer: its key in the archive and its
// little-endian bytes.
type Param struct {
	Key  string
	Data []byte
}

// global is a util.global the module declares for a parameter.
type global struct {
	sym, scope, key, typ string
}

func (g global) print(b *strings.Builder) {
	fmt.Fprintf(b, "  util.global private @%s {noinline} = #flow.parameter.named<%s::%s> : %s\n",
		escapeString("_params."+g.key), escapeString(g.scope), escapeString(g.key), g.typ)
}

// externalizable reports whether an initializer becomes a parameter.
func (gi *graphImporter) externalizable(t *tensor) bool {
	o := gi.imp.opts
	if !o.ExternalizeParams || !gi.main {
		return false
	}
	switch t.elem {
	case dtFloat, dtDouble, dtFloat16, dtBfloat16:
	default:
		return false
	}
	return t.numElements() >= o.ParamsMinElements && int64(len(t.data)) == t.numElements()*int64(elemTypes[t.elem].bytes)
}

// parameter loads initializer t (named name) from its parameter global.
func (gi *graphImporter) parameter(t *tensor, name string) error {
	builtin, err := builtinTensorAsm(t.elem, t.dims)
	if err != nil {
		return err
	}
	if err := gi.loadGlobal(name, builtin, tensorType(t.elem, t.dims)); err != nil {
		return err
	}
	gi.imp.params = append(gi.imp.params, Param{Key: name, Data: t.data})
	gi.env.set(name, constInfo(t))
	return nil
}

// inputParameter makes graph input name (of type t) a parameter global
// (Options.ExternalizeInputs): its value comes from a parameter archive at
// run time, so it is loaded where the function would have taken it as an
// argument. As in IREE's importer, the global's type is the signless
// builtin tensor and its bytes are not part of Imported.Params.
func (gi *graphImporter) inputParameter(name string, t *vtype) error {
	if !t.isTensor() || !t.ranked {
		return fmt.Errorf("graph input '%s' is not a ranked tensor: only tensors of static shape can be parameters", name)
	}
	for _, d := range t.dims {
		if d < 0 {
			return fmt.Errorf("graph input '%s' has a dynamic dimension: only tensors of static shape can be parameters (lower --externalize-inputs-threshold past it, or give the input a static shape)", name)
		}
	}
	e, err := signlessElem(t.elem)
	if err != nil {
		return fmt.Errorf("graph input '%s': %v", name, err)
	}
	if err := gi.loadGlobal(name, "tensor<"+builtinDims(t.dims)+e+">", t); err != nil {
		return err
	}
	gi.env.set(name, &info{t: t})
	return nil
}

// loadGlobal declares the parameter global for name (builtin type
// builtin) and loads it as a value of type vt, bound to name.
func (gi *graphImporter) loadGlobal(name, builtin string, vt *vtype) error {
	vasm, err := gi.imp.typeAsm(vt)
	if err != nil {
		return err
	}
	scope := gi.imp.opts.ParamsScope
	if scope == "" {
		scope = "model"
	}
	g := global{sym: "_params." + name, scope: scope, key: name, typ: builtin}
	gi.imp.globals = append(gi.imp.globals, g)
	load := &op{kind: opGlobalLoad, name: g.sym}
	lv := load.addResult(builtin)
	conv := &op{kind: opFromBuiltin, operands: []*value{lv}}
	gi.nv[name] = conv.addResult(vasm)
	gi.region.ops = append(gi.region.ops, load, conv)
	return nil
}

// signlessElem spells an element type as a builtin tensor holds it:
// integers signless (si64 and ui64 are i64), as IREE's importer types its
// parameter globals.
func signlessElem(dt int32) (string, error) {
	e, err := mlirElem(dt)
	if err != nil {
		return "", err
	}
	if elemTypes[dt].bytes == 0 && elemTypes[dt].bits == 0 {
		return "", fmt.Errorf("element type %s has no byte layout, so it cannot be a parameter", elemName(dt))
	}
	if strings.HasPrefix(e, "si") || strings.HasPrefix(e, "ui") {
		e = e[1:]
	}
	return e, nil
}
