/*
 * CUDA runtime and NVML hooks.  The real runtime implements cudaMalloc etc.
 * on top of the driver API (possibly through our driver hooks), so while a
 * runtime hook is inside the real runtime, hcn_tls_depth > 0 makes the
 * driver hooks pass through: every allocation is counted exactly once.
 */
#include "guard.h"

typedef cudaError_t (*rt_malloc_t)(void **, size_t);
typedef cudaError_t (*rt_free_t)(void *);
typedef cudaError_t (*rt_getinfo_t)(size_t *, size_t *);
typedef nvmlReturn_t (*nvml_meminfo_t)(nvmlDevice_t, nvmlMemory_t *);
typedef nvmlReturn_t (*nvml_meminfo_v2_t)(nvmlDevice_t, nvmlMemory_v2_t *);

/* Hook: cudaMalloc — refused with cudaErrorMemoryAllocation over quota. */
HCN_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    rt_malloc_t real = (rt_malloc_t)hcn_real(FN_cudaMalloc);
    if (HCN_UNLIKELY(real == NULL))
        return cudaErrorInitializationError;
    if (!hcn_guard_on())
        return real(devPtr, size);
    if (!hcn_reserve(size))
        return cudaErrorMemoryAllocation;
    hcn_tls_depth++;
    cudaError_t r = real(devPtr, size);
    hcn_tls_depth--;
    if (r != cudaSuccess || devPtr == NULL) {
        hcn_release(size);
        return r;
    }
    if (hcn_commit(&hcn_ptrs, (uint64_t)(uintptr_t)*devPtr, size) != 0) {
        rt_free_t f = (rt_free_t)hcn_real(FN_cudaFree);
        hcn_tls_depth++;
        if (f != NULL)
            (void)f(*devPtr);
        hcn_tls_depth--;
        *devPtr = NULL;
        return cudaErrorMemoryAllocation;
    }
    return r;
}

/* Hook: cudaFree — credits exactly what was recorded for devPtr. */
HCN_EXPORT cudaError_t cudaFree(void *devPtr)
{
    rt_free_t real = (rt_free_t)hcn_real(FN_cudaFree);
    if (HCN_UNLIKELY(real == NULL))
        return cudaErrorInitializationError;
    if (!hcn_guard_on())
        return real(devPtr);
    uint64_t size = 0, old, key = (uint64_t)(uintptr_t)devPtr;
    bool had = hcn_map_take(&hcn_ptrs, key, &size);
    hcn_tls_depth++;
    cudaError_t r = real(devPtr);
    hcn_tls_depth--;
    if (had) {
        if (r == cudaSuccess)
            hcn_release(size);
        else
            (void)hcn_map_put(&hcn_ptrs, key, size, &old);
    }
    return r;
}

/* Hook: cudaMemGetInfo — total = quota, free = min(real free, quota - used). */
HCN_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    rt_getinfo_t real = (rt_getinfo_t)hcn_real(FN_cudaMemGetInfo);
    if (HCN_UNLIKELY(real == NULL))
        return cudaErrorInitializationError;
    if (!hcn_guard_on())
        return real(free, total);
    hcn_tls_depth++;
    cudaError_t r = real(free, total);
    hcn_tls_depth--;
    if (r != cudaSuccess)
        return r;
    unsigned long long f = free ? *free : 0, t = total ? *total : 0;
    hcn_clamp(&f, &t);
    if (free)
        *free = (size_t)f;
    if (total)
        *total = (size_t)t;
    return r;
}

/* Hook: nvmlDeviceGetMemoryInfo — total = quota, free = min(real free,
 * quota - used), used = total - free. */
HCN_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    nvml_meminfo_t real = (nvml_meminfo_t)hcn_real(FN_nvmlDeviceGetMemoryInfo);
    if (HCN_UNLIKELY(real == NULL))
        return NVML_ERROR_UNINITIALIZED;
    nvmlReturn_t r = real(device, memory);
    if (r != NVML_SUCCESS || memory == NULL || !hcn_guard_on())
        return r;
    hcn_clamp(&memory->free, &memory->total);
    memory->used = memory->total - memory->free;
    return r;
}

/* Hook: nvmlDeviceGetMemoryInfo_v2 (what nvidia-smi reads) — total = quota, free = min(real free,
 * quota - used); reserved is capped to what is left, used = total - reserved - free. */
HCN_EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
    nvml_meminfo_v2_t real = (nvml_meminfo_v2_t)hcn_real(FN_nvmlDeviceGetMemoryInfo_v2);
    if (HCN_UNLIKELY(real == NULL))
        return NVML_ERROR_UNINITIALIZED;
    nvmlReturn_t r = real(device, memory);
    if (r != NVML_SUCCESS || memory == NULL || !hcn_guard_on())
        return r;
    hcn_clamp(&memory->free, &memory->total);
    if (memory->reserved > memory->total - memory->free)
        memory->reserved = memory->total - memory->free;
    memory->used = memory->total - memory->reserved - memory->free;
    return r;
}
