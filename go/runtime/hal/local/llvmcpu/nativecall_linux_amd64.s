#include "textflag.h"

// func callOnStack(fn, top, a0, a1, a2 uintptr) uintptr
//
// Calls the System V function fn(a0, a1, a2) with SP at top (aligned down
// to 16 bytes), then returns to the goroutine's stack. R12 is callee-saved
// in the System V ABI, so it keeps the goroutine's SP across the call.
// No FP-relative access happens while SP is moved.
TEXT ·callOnStack(SB), NOSPLIT|NOFRAME, $0-48
	MOVQ fn+0(FP), AX
	MOVQ top+8(FP), R8
	MOVQ a0+16(FP), DI
	MOVQ a1+24(FP), SI
	MOVQ a2+32(FP), DX
	MOVQ SP, R12
	ANDQ $~15, R8
	MOVQ R8, SP
	CALL AX
	MOVQ R12, SP
	MOVQ AX, ret+40(FP)
	RET
