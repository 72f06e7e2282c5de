// Package hugepage allocates large byte buffers on the Go heap so that
// the kernel may back them with transparent huge pages (2 MiB on x86-64
// and most aarch64 kernels): the buffer starts on a huge-page boundary
// and, on Linux, its range is advised MADV_HUGEPAGE, which takes effect
// where /sys/kernel/mm/transparent_hugepage/enabled is "madvise" (the
// common default) or "always".
//
// A model's weights and activations are tens of megabytes touched on
// every run; with 4 KiB pages they need thousands of TLB entries, more
// than a core has, and every run pays page walks. With huge pages they
// need a few dozen.
package hugepage
