// Package timeline records what the HAL devices do — every dispatch,
// transfer, fill, copy, update, queue allocation and semaphore wait — as a
// timeline a person can look at: Chrome trace-event JSON
// ({"traceEvents": [...], "displayTimeUnit": "ms"}) that Perfetto
// (ui.perfetto.dev) and chrome://tracing open.
//
// Each device is a process (pid) named after it, each of its queues a
// thread (tid); work is a complete event ("ph": "X") with its start (ts)
// and duration (dur) in microseconds since the recording began and its
// details in args (workgroup count, bytes). Operations of one queue that
// overlap in time (a local queue runs work that waited on a goroutine of
// its own) go to extra lanes of the queue ("queue 0 #2"), so slices on one
// thread always nest. Host-side waits go to the "host" process.
//
// Recording is off unless started: Start (the --trace_output flag of the
// runtime tools, gree_trace_begin in C, iree_go.runtime.trace_output in
// Python) makes a Recorder active and Finish writes it. Instrumented code
// asks Active() — one atomic load — and does nothing more when it is nil.
// A Recorder is safe for use from many goroutines.
//
// Times are the host's monotonic clock, except where a driver reads the
// device's own timestamps (Vulkan timestamp queries): those events carry
// device ticks and a Clock that maps them onto the host timeline, bounded
// by causality (no work starts on the device before it was submitted).
package timeline
