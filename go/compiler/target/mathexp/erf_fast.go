package mathexp

import "github.com/gree-ml/gree/go/compiler/kir"

// ErfFastULP is the error bound, in f32 ULPs, of the fast erf
// (ExpandWhereFast): 5.8 at most on 400,001 points evenly spread over
// [0, 3.92] when it was fitted; TestExpandErfFast checks a dense grid
// and the usual sample.
const ErfFastULP = 6

// erfFastLimit is where the fast erf returns ±1: erfc(3.92) < 2^-25, so
// erf rounds to 1 in f32 from there on.
const erfFastLimit = 3.92

// erfFastP and erfFastQ are the rational approximation erf(x) ≈
// x·P(x²)/Q(x²) on |x| ≤ erfFastLimit: a weighted least-squares fit of
// P(t) − (erf(√t)/√t)·Q(t) over 42,000 points, reweighted by the
// relative error (Loeb's and Lawson's iterations) until its largest
// relative error, 1.9e-8 in float64, stopped falling; degrees 5 and 5
// were the smallest whose f32 evaluation (Horner's rule by fused
// multiply-adds, then one division) stays within 6 ULP. The fit is
// bench/fit_erf.py.
var (
	erfFastP = []float64{1.1283791065216064, 0.19027866423130035, 0.05273298919200897, 0.003760478924959898, 0.00028482687775976956, 2.051838464467437e-06}
	erfFastQ = []float64{1.0, 0.5019628405570984, 0.11405734717845917, 0.014958851039409637, 0.0011614026734605432, 3.810696944128722e-05}
)

// erfFast returns erf(x) in f32 by one rational function, with no
// branch per lane (what vectorizes: the accurate erf selects among five
// polynomials and a continued fraction, all computed for every lane).
// NaN stays NaN, ±0 and ±Inf give ±0 and ±1.
func (f fb) erfFast(x kir.Value) kir.Value {
	a := f.clamp(x, -erfFastLimit, erfFastLimit)
	t := f.mul(a, a)
	p, q := f.polyFMA(t, erfFastP...), f.polyFMA(t, erfFastQ...)
	r := f.div(f.mul(a, p), q)
	return f.sel(f.ge(f.abs(x), f.c(erfFastLimit)), f.copySign(f.c(1), x), r)
}
