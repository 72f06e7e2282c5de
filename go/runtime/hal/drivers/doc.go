// Package drivers registers every HAL driver gree is built with, in IREE's
// registration order (runtime/src/iree/hal/drivers/init.c): cuda, hip,
// local-sync, local-task, metal (darwin builds only), vulkan.
package drivers
