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
	vt, err := gi.imp.typeAsm(tensorType(t.elem, t.dims))
	if err != nil {
		return err
	}
	scope := gi.imp.opts.ParamsScope
	if scope == "" {
		scope = "model"
	}
	g := global{sym: "_params." + name, scope: scope, key: name, typ: builtin}
	gi.imp.globals = append(gi.imp.globals, g)
	gi.imp.params = append(gi.imp.params, Param{Key: name, Data: t.data})
	load := &op{kind: opGlobalLoad, name: g.sym}
	lv := load.addResult(builtin)
	conv := &op{kind: opFromBuiltin, operands: []*value{lv}}
	gi.nv[name] = conv.addResult(vt)
	gi.region.ops = append(gi.region.ops, load, conv)
	gi.env.set(name, constInfo(t))
	return nil
}
