// Command capi is libgree.so: `go build -buildmode=c-shared -o libgree.so
// ./capi` exports the C ABI declared in include/gree.h. Handles are small C
// structs holding a cgo.Handle to the Go object; every export recovers Go
// panics into an INTERNAL status, so no panic crosses into C.
package main
