// Package params reads and writes parameter files: the named tensors
// (weights) a compiled program loads when its context is created instead
// of carrying them in the module file.
//
// Three formats are read, each memory-mapped read-only and never copied on
// load: IREE's parameter archive (.irpa: a header, an entry table, a
// metadata segment and an aligned storage segment, with splat entries that
// have no storage), Hugging Face's .safetensors (a JSON header and
// little-endian data) and GGUF v2/v3 (a header, key/value metadata, tensor
// infos and aligned data). Open returns a File with its entries; an Entry
// names its key, byte length and either a range of the mapped file or a
// splat pattern.
//
// A Provider groups files into scopes as IREE's --parameters=[scope=]file
// flag does and resolves (scope, key) pairs for the runtime; Writer builds
// .irpa archives (iree-create-parameters, iree-convert-parameters).
//
// IREE's programmatic API (iree/io, and iree.runtime's ParameterIndex) is
// FileHandle (host memory, a mapped or preloaded file, or a descriptor),
// Index (entries added one by one or parsed from a file handle, written
// back as an archive by WriteArchive), IndexProvider (an index served as
// one scope) and ProviderSet (the providers of an io_parameters module,
// resolving parameters into copies the Go runtime owns). All three are
// reference counted, as IREE's objects are.
//
// Every file is untrusted input: a malformed or truncated file is an error
// naming the file and the entry, never a panic (the fuzz tests mutate files
// of all three formats).
package params
