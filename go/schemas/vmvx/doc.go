// Package vmvx is the vmvx executable format: the compact register
// bytecode the vmvx target emits for kernels (go/compiler/target/vmvx) and
// the local CPU drivers interpret (go/runtime/hal/local/vmvx). One
// executable holds one entry point per dispatch kernel.
//
// Layout (all integers little-endian; "uv" is an unsigned LEB128 varint,
// "sv" a zig-zag signed varint):
//
//	header (16 bytes): magic "GVMX", version u16 = 1, flags u16 = 0,
//	                   body length u32, CRC-32 (IEEE) of the body u32
//	body:   uv entry count, then per entry:
//	        uv name length, name (UTF-8, unique)
//	        uv workgroup size x, y, z
//	        uv push-constant count
//	        uv binding count, per binding: u8 element type, u8 access
//	        uv shared-allocation count, per allocation: u8 element type, uv count
//	        uv register count, per register: u8 element type, uv lanes
//	        uv instruction count, per instruction: u8 opcode, operands
//
// Registers are typed: each has an element type (numbered as kir.Scalar:
// i1=1 … f64=9) and a lane count (1 for a scalar), fixed for the whole
// entry. Every instruction's operands follow its opcode's layout
// (Opcode.Layout): destination and source registers, immediates, jump
// targets (instruction indices) and binding indices. Control flow is
// unstructured: Jmp, Jz, Jnz, and the counted-loop pair ForInit/ForNext;
// execution ends after the last instruction.
//
// The arithmetic, vector, memory and thread-level opcodes have exactly the
// semantics of the kernel IR ops of the same names (kir.Run documents the
// details: integer wrap-around, division by zero giving 0, f16 and bf16
// arithmetic computed in f32, saturating float-to-int conversions, …).
//
// The file is untrusted input: Decode checks the header, the checksum,
// every count and varint against the bytes left and the limits (MaxLanes,
// MaxRegisterBytes, …), then Verify checks every instruction: opcode
// validity, register indices, the register types each opcode requires,
// immediates (dimensions, lanes, predicates, reduction kinds), binding and
// shared-allocation indices with the access they need, and jump targets.
// Errors are status errors, DATA_LOSS for damaged bytes and
// INVALID_ARGUMENT for rule violations; neither function panics. A verified
// executable can be run with only the run-time checks of buffer bounds and
// loop steps. docs/vmvx-format.md describes the format in full.
//
// This package imports only the standard library and go/status.
package vmvx
