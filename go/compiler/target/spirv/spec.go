package spirv

// Opcode and enumerant values from the SPIR-V 1.6 specification and the
// GLSL.std.450 extended instruction set.

// Opcodes.
const (
	opExtension              = 10
	opExtInstImport          = 11
	opExtInst                = 12
	opMemoryModel            = 14
	opEntryPoint             = 15
	opExecutionMode          = 16
	opCapability             = 17
	opTypeVoid               = 19
	opTypeBool               = 20
	opTypeInt                = 21
	opTypeFloat              = 22
	opTypeVector             = 23
	opTypeArray              = 28
	opTypeRuntimeArray       = 29
	opTypeStruct             = 30
	opTypePointer            = 32
	opTypeFunction           = 33
	opConstantTrue           = 41
	opConstantFalse          = 42
	opConstant               = 43
	opFunction               = 54
	opFunctionParameter      = 55
	opFunctionEnd            = 56
	opFunctionCall           = 57
	opVariable               = 59
	opLoad                   = 61
	opStore                  = 62
	opAccessChain            = 65
	opArrayLength            = 68
	opDecorate               = 71
	opMemberDecorate         = 72
	opCompositeConstruct     = 80
	opCompositeExtract       = 81
	opConvertFToU            = 109
	opConvertFToS            = 110
	opConvertSToF            = 111
	opConvertUToF            = 112
	opUConvert               = 113
	opSConvert               = 114
	opFConvert               = 115
	opBitcast                = 124
	opSNegate                = 126
	opFNegate                = 127
	opIAdd                   = 128
	opFAdd                   = 129
	opISub                   = 130
	opFSub                   = 131
	opIMul                   = 132
	opFMul                   = 133
	opUDiv                   = 134
	opSDiv                   = 135
	opFDiv                   = 136
	opUMod                   = 137
	opSRem                   = 138
	opSMod                   = 139
	opIsNan                  = 156
	opIsInf                  = 157
	opLogicalEqual           = 164
	opLogicalNotEqual        = 165
	opLogicalOr              = 166
	opLogicalAnd             = 167
	opLogicalNot             = 168
	opSelect                 = 169
	opIEqual                 = 170
	opINotEqual              = 171
	opUGreaterThan           = 172
	opSGreaterThan           = 173
	opUGreaterThanEqual      = 174
	opSGreaterThanEqual      = 175
	opULessThan              = 176
	opSLessThan              = 177
	opULessThanEqual         = 178
	opSLessThanEqual         = 179
	opFOrdEqual              = 180
	opFUnordEqual            = 181
	opFOrdNotEqual           = 182
	opFUnordNotEqual         = 183
	opFOrdLessThan           = 184
	opFUnordLessThan         = 185
	opFOrdGreaterThan        = 186
	opFUnordGreaterThan      = 187
	opFOrdLessThanEqual      = 188
	opFUnordLessThanEqual    = 189
	opFOrdGreaterThanEqual   = 190
	opFUnordGreaterThanEqual = 191
	opShiftRightLogical      = 194
	opShiftRightArithmetic   = 195
	opShiftLeftLogical       = 196
	opBitwiseOr              = 197
	opBitwiseXor             = 198
	opBitwiseAnd             = 199
	opNot                    = 200
	opBitCount               = 205
	opControlBarrier         = 224
	opAtomicCompareExchange  = 230
	opPhi                    = 245
	opLoopMerge              = 246
	opSelectionMerge         = 247
	opLabel                  = 248
	opBranch                 = 249
	opBranchConditional      = 250
	opReturn                 = 253
	opReturnValue            = 254
	opGroupNonUniformShuffle = 345
)

// Enumerants.
const (
	addressingLogical  = 0
	memoryModelGLSL450 = 1
	execModelGLCompute = 5
	execModeLocalSize  = 17

	scInput         = 1
	scWorkgroup     = 4
	scFunction      = 7
	scPushConstant  = 9
	scStorageBuffer = 12

	decBlock         = 2
	decArrayStride   = 6
	decBuiltIn       = 11
	decNoContraction = 42
	decNonWritable   = 24
	decNonReadable   = 25
	decBinding       = 33
	decDescriptorSet = 34
	decOffset        = 35

	builtinNumWorkgroups             = 24
	builtinWorkgroupID               = 26
	builtinLocalInvocationID         = 27
	builtinLocalInvocationIndex      = 29
	builtinSubgroupSize              = 36
	builtinSubgroupLocalInvocationID = 41

	scopeDevice    = 1
	scopeWorkgroup = 2
	scopeSubgroup  = 3

	semAcquireRelease  = 0x8
	semWorkgroupMemory = 0x100
	semUniformMemory   = 0x40
)

// Capabilities, by the names the executable format records.
var capabilityIDs = map[string]uint32{
	"Shader":                   1,
	"Float16":                  9,
	"Float64":                  10,
	"Int64":                    11,
	"Int16":                    22,
	"Int8":                     39,
	"GroupNonUniform":          61,
	"GroupNonUniformShuffle":   65,
	"StorageBuffer16BitAccess": 4433,
	"StorageBuffer8BitAccess":  4448,
}

// GLSL.std.450 instructions.
const (
	glslRoundEven = 2
	glslTrunc     = 3
	glslFAbs      = 4
	glslFloor     = 8
	glslCeil      = 9
	glslSqrt      = 31
	glslInvSqrt   = 32
	glslFma       = 50
	glslLdexp     = 53
	glslFindILsb  = 73
	glslFindUMsb  = 75
)
