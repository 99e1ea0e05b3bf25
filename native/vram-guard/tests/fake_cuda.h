/*
 * FAKE CUDA driver / runtime / NVML library used only by the tests and the
 * benchmark (no GPU here).  It exports the same symbols as the real
 * libraries, counts calls, and hands out fake device pointers from a
 * counter.  Nothing in it talks to hardware.
 */
#ifndef HCN_FAKE_CUDA_H
#define HCN_FAKE_CUDA_H

#include "cuda_decls.h"

/* Set the "real" free/total memory the fake reports and enforces. */
void fake_cuda_set_mem(unsigned long long free_bytes, unsigned long long total_bytes);
/* Number of allocation calls (any kind) that reached the fake. */
long fake_cuda_alloc_calls(void);
/* Number of free/release calls that reached the fake. */
long fake_cuda_free_calls(void);
/* Number of meminfo calls that reached the fake. */
long fake_cuda_info_calls(void);
/* Pitch alignment used by the fake's cuMemAllocPitch_v2. */
#define FAKE_PITCH_ALIGN 1024

/* Direct, never-hooked entry points (benchmark baseline). */
CUresult fake_cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize);
CUresult fake_cuMemFree_v2(CUdeviceptr dptr);
CUresult fake_cuMemGetInfo_v2(size_t *free, size_t *total);

#endif
