// Package cuda is the "cuda" HAL driver: NVIDIA GPUs through the CUDA
// driver API, loaded at run time from libcuda.so.1 (the NVIDIA driver ships
// it; no CUDA toolkit is needed), as IREE's runtime/src/iree/hal/drivers/cuda
// does.
//
// Devices are numbered as in IREE: DeviceID is the CUdevice + 1, the path is
// the GPU UUID as nvidia-smi -L prints it ("GPU-xxxxxxxx-xxxx-…") and the
// name is cuDeviceGetName's. A URI path may also be an ordinal ("cuda://1");
// the empty path is the default device (--cuda_default_index, or the MPI
// rank from PMI_RANK / OMPI_COMM_WORLD_LOCAL_RANK when
// --cuda_default_index_from_mpi is set). Creating a device retains its
// primary context; closing the device releases it.
//
// DumpDeviceInfo writes the same --dump_devices text as IREE's
// cuda_driver.c (REFERENCE §5 "CUDA dump"), from cuDeviceGetAttribute and
// cuDriverGetVersion.
package cuda
