package vm

import (
	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/schemas/module"
)

// kindOf returns the register kind holding values of type t.
func kindOf(t ir.Type) (module.Kind, bool) {
	switch t := t.(type) {
	case *ir.IndexType:
		return module.KindI64, true
	case *ir.IntegerType:
		if t.Width <= 32 {
			return module.KindI32, true
		}
		if t.Width == 64 {
			return module.KindI64, true
		}
	case *ir.FloatType:
		switch t.Kind {
		case ir.KindF16, ir.KindBF16, ir.KindF32:
			return module.KindF32, true
		case ir.KindF64:
			return module.KindF64, true
		}
	case *ir.RankedTensorType:
		return module.KindRef, true
	}
	return 0, false
}

// scalarType returns the module scalar type code of t.
func scalarType(t ir.Type) (uint8, bool) {
	switch t := t.(type) {
	case *ir.IndexType:
		return module.TypeI64, true
	case *ir.IntegerType:
		switch t.Width {
		case 1:
			return module.TypeI1, true
		case 8:
			return module.TypeI8, true
		case 16:
			return module.TypeI16, true
		case 32:
			return module.TypeI32, true
		case 64:
			return module.TypeI64, true
		}
	case *ir.FloatType:
		switch t.Kind {
		case ir.KindF16:
			return module.TypeF16, true
		case ir.KindBF16:
			return module.TypeBF16, true
		case ir.KindF32:
			return module.TypeF32, true
		case ir.KindF64:
			return module.TypeF64, true
		}
	}
	return 0, false
}

// ElementTypeWord returns IREE's element-type word for an MLIR element
// type (signless integers as IREE's "integer", i1 as bool).
func ElementTypeWord(t ir.Type) (uint32, bool) {
	mk := func(num, bits uint32) uint32 { return num<<24 | bits }
	switch t := t.(type) {
	case *ir.IndexType:
		return mk(0x10, 64), true
	case *ir.IntegerType:
		if t.Width == 1 {
			return mk(0x13, 8), true
		}
		num := uint32(0x10)
		switch t.Signedness {
		case ir.Signed:
			num = 0x11
		case ir.Unsigned:
			num = 0x12
		}
		return mk(num, uint32(t.Width)), true
	case *ir.FloatType:
		switch t.Kind {
		case ir.KindF16:
			return mk(0x21, 16), true
		case ir.KindF32:
			return mk(0x21, 32), true
		case ir.KindF64:
			return mk(0x21, 64), true
		case ir.KindBF16:
			return mk(0x22, 16), true
		case ir.KindF8E5M2:
			return mk(0x24, 8), true
		case ir.KindF8E4M3FN:
			return mk(0x25, 8), true
		case ir.KindF8E5M2FNUZ:
			return mk(0x26, 8), true
		case ir.KindF8E4M3FNUZ:
			return mk(0x27, 8), true
		case ir.KindF8E8M0FNU:
			return mk(0x28, 8), true
		case ir.KindF4E2M1FN:
			return mk(0x29, 4), true
		}
	case *ir.ComplexType:
		if f, ok := t.Elem.(*ir.FloatType); ok {
			switch f.Kind {
			case ir.KindF32:
				return mk(0x23, 64), true
			case ir.KindF64:
				return mk(0x23, 128), true
			}
		}
	}
	return 0, false
}
