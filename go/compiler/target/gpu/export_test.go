package gpu

// WithIndexNarrowing runs f with LowerInt64 (and so Legalize) narrowing
// index arithmetic (on) or emulating i64 data alone (off), and restores
// the setting afterwards, so that tests do not depend on their order.
func WithIndexNarrowing(on bool, f func() error) error {
	old := narrowIndexArithmetic
	narrowIndexArithmetic = on
	defer func() { narrowIndexArithmetic = old }()
	return f()
}
