// Package tosa converts TOSA ops — both the older form, whose shifts, zero
// points, paddings and shapes are attributes, and TOSA 1.0's, where they
// are operands — to the core tensor program (package core). Variables
// become util.global (Variables, called by package input before the
// functions are converted); every other op goes through Lower.
package tosa
