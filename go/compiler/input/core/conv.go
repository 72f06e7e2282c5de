package core

import (
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
	"github.com/gree-ml/gree/go/compiler/linalg"
)

// convSpecs describe convolutions and poolings as contractions whose
// input indices use strides (S0, S1, S2) and dilations (D0, D1, D2).
var convSpecs = map[string]string{
	"conv_1d":                       "ow kw* : ow*S0+kw*D0 kw ow",
	"conv_2d":                       "oh ow kh* kw* : oh*S0+kh*D0,ow*S1+kw*D1 kh,kw oh,ow",
	"conv_3d":                       "od oh ow kd* kh* kw* : od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2 kd,kh,kw od,oh,ow",
	"conv_1d_nwc_wcf":               "n ow f kw* c* : n,ow*S0+kw*D0,c kw,c,f n,ow,f",
	"conv_1d_ncw_fcw":               "n f ow c* kw* : n,c,ow*S0+kw*D0 f,c,kw n,f,ow",
	"conv_2d_nhwc_hwcf":             "n oh ow f kh* kw* c* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw,c,f n,oh,ow,f",
	"conv_2d_nhwc_fhwc":             "n oh ow f kh* kw* c* : n,oh*S0+kh*D0,ow*S1+kw*D1,c f,kh,kw,c n,oh,ow,f",
	"conv_2d_nchw_fchw":             "n f oh ow c* kh* kw* : n,c,oh*S0+kh*D0,ow*S1+kw*D1 f,c,kh,kw n,f,oh,ow",
	"conv_2d_ngchw_fgchw":           "n g f oh ow c* kh* kw* : n,g,c,oh*S0+kh*D0,ow*S1+kw*D1 f,g,c,kh,kw n,g,f,oh,ow",
	"conv_2d_ngchw_gfchw":           "n g f oh ow c* kh* kw* : n,g,c,oh*S0+kh*D0,ow*S1+kw*D1 g,f,c,kh,kw n,g,f,oh,ow",
	"conv_2d_nhwgc_gfhwc":           "n oh ow g f kh* kw* c* : n,oh*S0+kh*D0,ow*S1+kw*D1,g,c g,f,kh,kw,c n,oh,ow,g,f",
	"conv_3d_ndhwc_dhwcf":           "n od oh ow f kd* kh* kw* c* : n,od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2,c kd,kh,kw,c,f n,od,oh,ow,f",
	"conv_3d_ncdhw_fcdhw":           "n f od oh ow c* kd* kh* kw* : n,c,od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2 f,c,kd,kh,kw n,f,od,oh,ow",
	"depthwise_conv_1d_nwc_wc":      "n ow c kw* : n,ow*S0+kw*D0,c kw,c n,ow,c",
	"depthwise_conv_1d_ncw_cw":      "n c ow kw* : n,c,ow*S0+kw*D0 c,kw n,c,ow",
	"depthwise_conv_1d_nwc_wcm":     "n ow c m kw* : n,ow*S0+kw*D0,c kw,c,m n,ow,c,m",
	"depthwise_conv_2d_nhwc_hwc":    "n oh ow c kh* kw* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw,c n,oh,ow,c",
	"depthwise_conv_2d_nchw_chw":    "n c oh ow kh* kw* : n,c,oh*S0+kh*D0,ow*S1+kw*D1 c,kh,kw n,c,oh,ow",
	"depthwise_conv_2d_nhwc_hwcm":   "n oh ow c m kh* kw* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw,c,m n,oh,ow,c,m",
	"depthwise_conv_3d_ndhwc_dhwc":  "n od oh ow c kd* kh* kw* : n,od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2,c kd,kh,kw,c n,od,oh,ow,c",
	"depthwise_conv_3d_ndhwc_dhwcm": "n od oh ow c m kd* kh* kw* : n,od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2,c kd,kh,kw,c,m n,od,oh,ow,c,m",
	"pooling_nhwc_sum":              "n oh ow c kh* kw* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw n,oh,ow,c",
	"pooling_nhwc_max":              "n oh ow c kh* kw* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw n,oh,ow,c",
	"pooling_nhwc_max_unsigned":     "n oh ow c kh* kw* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw n,oh,ow,c",
	"pooling_nhwc_min":              "n oh ow c kh* kw* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw n,oh,ow,c",
	"pooling_nhwc_min_unsigned":     "n oh ow c kh* kw* : n,oh*S0+kh*D0,ow*S1+kw*D1,c kh,kw n,oh,ow,c",
	"pooling_nchw_sum":              "n c oh ow kh* kw* : n,c,oh*S0+kh*D0,ow*S1+kw*D1 kh,kw n,c,oh,ow",
	"pooling_nchw_max":              "n c oh ow kh* kw* : n,c,oh*S0+kh*D0,ow*S1+kw*D1 kh,kw n,c,oh,ow",
	"pooling_nwc_sum":               "n ow c kw* : n,ow*S0+kw*D0,c kw n,ow,c",
	"pooling_nwc_max":               "n ow c kw* : n,ow*S0+kw*D0,c kw n,ow,c",
	"pooling_nwc_min":               "n ow c kw* : n,ow*S0+kw*D0,c kw n,ow,c",
	"pooling_ncw_sum":               "n c ow kw* : n,c,ow*S0+kw*D0 kw n,c,ow",
	"pooling_ncw_max":               "n c ow kw* : n,c,ow*S0+kw*D0 kw n,c,ow",
	"pooling_ndhwc_sum":             "n od oh ow c kd* kh* kw* : n,od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2,c kd,kh,kw n,od,oh,ow,c",
	"pooling_ndhwc_max":             "n od oh ow c kd* kh* kw* : n,od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2,c kd,kh,kw n,od,oh,ow,c",
	"pooling_ndhwc_min":             "n od oh ow c kd* kh* kw* : n,od*S0+kd*D0,oh*S1+kh*D1,ow*S2+kw*D2,c kd,kh,kw n,od,oh,ow,c",
}

func convolution(b *ir.Builder, op *ir.Operation, name string, ins, outs []*ir.Value) (*ir.Operation, error) {
	spec := convSpecs[name]
	strides, okS := IntList(op, "strides")
	dil, okD := IntList(op, "dilations")
	if !okS && op.Attr("strides") != nil || !okD && op.Attr("dilations") != nil {
		return nil, ir.OpErrorf(op, "strides and dilations must be lists of integers, one per spatial dimension")
	}
	for i := 0; i < 3; i++ {
		s, d := int64(1), int64(1)
		if i < len(strides) {
			s = strides[i]
		}
		if i < len(dil) {
			d = dil[i]
		}
		spec = strings.ReplaceAll(spec, fmt.Sprintf("S%d", i), fmt.Sprint(s))
		spec = strings.ReplaceAll(spec, fmt.Sprintf("D%d", i), fmt.Sprint(d))
	}
	maps, its, err := parseSpec(spec)
	if err != nil {
		return nil, err
	}
	if len(ins) != 2 || len(outs) != 1 {
		return nil, ir.OpErrorf(op, "expects two inputs and one output")
	}
	body := MulAdd
	if strings.HasPrefix(name, "pooling_") {
		kind := strings.Split(strings.TrimPrefix(name, "pooling_"), "_")[1:]
		body = poolBody(strings.Join(kind, "_"))
	}
	return linalg.BuildGeneric(b, ins, outs, maps, its, body), nil
}

// poolBody combines the window element into the output.
func poolBody(kind string) linalg.BodyFunc {
	return func(bb *ir.Builder, args []*ir.Value) []*ir.Value {
		out := args[len(args)-1]
		in := Cast(bb, args[0], out.Type)
		f := ir.IsFloat(out.Type)
		var name string
		switch kind {
		case "sum":
			name = map[bool]string{true: "arith.addf", false: "arith.addi"}[f]
		case "max":
			name = map[bool]string{true: "arith.maximumf", false: "arith.maxsi"}[f]
		case "min":
			name = map[bool]string{true: "arith.minimumf", false: "arith.minsi"}[f]
		case "max_unsigned":
			name = "arith.maxui"
		case "min_unsigned":
			name = "arith.minui"
		}
		return []*ir.Value{bb.Create(name, []*ir.Value{out, in}, []ir.Type{out.Type}).Result(0)}
	}
}
