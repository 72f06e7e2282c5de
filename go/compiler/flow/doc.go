// Package flow is the dispatch-creation phase: element-wise fusion of
// linalg.generic producers into their consumers (so an element-wise chain
// is one loop nest and one pass over memory), then one
// flow.dispatch.region per remaining generic. Everything outside the
// regions is host code.
package flow
