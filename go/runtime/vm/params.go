package vm

import (
	"fmt"
	"slices"

	"github.com/gree-ml/gree/go/schemas/module"
	"github.com/gree-ml/gree/go/status"
)

// ParameterSource supplies the bytes of a module's parameter constants
// (globals initialized from #flow.parameter.named<"scope"::"key">): the
// bytes of key in scope, exactly length bytes, preferably aligned to align
// (go/runtime/io/params.Provider implements it over parameter files).
// The bytes must stay valid and unchanged while any buffer made from them
// is in use.
type ParameterSource interface {
	Parameter(scope, key string, length, align int64) ([]byte, error)
}

// DefaultParameters, when set, returns the parameter source of contexts
// given none with SetParameters, or nil when there is none. The runtime
// facade sets it to the files of the --parameters flags.
var DefaultParameters func() (ParameterSource, error)

// SetParameters sets the source of the parameters the modules registered
// afterwards load.
func (c *Context) SetParameters(p ParameterSource) { c.params = p }

// parameterConstants returns m's constants with the bytes of each
// parameter constant resolved from the context's parameter source (m's own
// constants when it has no parameters). On local devices the bytes are
// the parameter file's mapping, used without a copy.
func (c *Context) parameterConstants(m *Module) ([]module.Constant, error) {
	if !m.Def.HasParameters() {
		return m.Def.Constants, nil
	}
	src := c.params
	if src == nil && DefaultParameters != nil {
		var err error
		if src, err = DefaultParameters(); err != nil {
			return nil, fmt.Errorf("module '%s': %w", m.Name(), err)
		}
	}
	consts := slices.Clone(m.Def.Constants)
	for i := range consts {
		p := consts[i].Parameter
		if p == nil {
			continue
		}
		what := parameterUser(m.Def, i)
		if src == nil {
			return nil, status.Errorf(status.NotFound, "module '%s': %s needs parameter '%s' but no parameter files were given (pass --parameters=[scope=]file.irpa|.safetensors|.gguf)", m.Name(), what, p)
		}
		n := consts[i].ByteLength()
		align := max(int64(consts[i].ElementType&0xff)/8, 1)
		data, err := src.Parameter(p.Scope, p.Key, n, min(align, 16))
		if err != nil {
			return nil, status.Errorf(status.CodeOf(err), "module '%s': %s: %s", m.Name(), what, statusMessage(err))
		}
		if int64(len(data)) != n {
			return nil, status.Errorf(status.InvalidArgument, "module '%s': %s: parameter '%s' is %d bytes, want %d", m.Name(), what, p, len(data), n)
		}
		consts[i].Data = data
	}
	return consts, nil
}

// parameterUser names what uses constant i: the first global it
// initializes, or the constant.
func parameterUser(m *module.Module, i int) string {
	for _, g := range m.Globals {
		if g.Kind == module.KindRef && int(g.Init) == i {
			return fmt.Sprintf("global @%s", g.Name)
		}
	}
	return fmt.Sprintf("constant %d", i)
}

func statusMessage(err error) string {
	if se, ok := err.(*status.Error); ok {
		return se.Msg
	}
	return err.Error()
}
