// Package hal is gree's hardware abstraction layer: the Driver and Device
// interfaces every backend implements, the driver registry, and device URI
// parsing. It mirrors IREE's iree/hal: drivers are registered by name with a
// human-readable full name, enumerate devices as DeviceInfo, and create
// devices by id, by path, or by URI ("cuda", "cuda:0", "cuda://GPU-<uuid>").
//
// Drivers live in hal/drivers/*; none of them imports another, and this
// package imports none of them.
package hal
