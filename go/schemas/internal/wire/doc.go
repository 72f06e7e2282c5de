// Package wire is the framing the per-target executable formats share
// (go/schemas/llvmcpu, spirv, cuda): a 16-byte header (4-byte magic,
// version u16, flags u16 = 0, body length u32, CRC-32 IEEE of the body
// u32, all little-endian) and a body of unsigned LEB128 varints, bytes and
// length-prefixed strings. Reader checks every count against a limit and
// the bytes left, records the first failure as DATA_LOSS naming the body
// byte, and never panics.
package wire
