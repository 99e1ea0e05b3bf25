/*
 * CUDA driver API hooks.  Pattern for allocations: reserve in the counter,
 * call the real allocator, then record pointer -> size (or roll back).
 * Frees remove the record first (so a concurrent re-allocation of the same
 * address cannot be confused with it), call the real free, then credit, or
 * put the record back if the real free failed.
 */
#include "guard.h"

typedef CUresult (*alloc_v2_t)(CUdeviceptr *, size_t);
typedef CUresult (*alloc_managed_t)(CUdeviceptr *, size_t, unsigned int);
typedef CUresult (*alloc_pitch_t)(CUdeviceptr *, size_t *, size_t, size_t, unsigned int);
typedef CUresult (*alloc_async_t)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*create_t)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                             unsigned long long);
typedef CUresult (*release_t)(CUmemGenericAllocationHandle);
typedef CUresult (*free_t)(CUdeviceptr);
typedef CUresult (*free_async_t)(CUdeviceptr, CUstream);
typedef CUresult (*getinfo_t)(size_t *, size_t *);

#define REAL(fn, type)                                       \
    type real = (type)hcn_real(FN_##fn);                     \
    if (HCN_UNLIKELY(real == NULL))                          \
        return CUDA_ERROR_NOT_INITIALIZED

/* Undo a real allocation that could not be recorded. */
static CUresult drop_ptr(CUdeviceptr p)
{
    free_t f = (free_t)hcn_real(FN_cuMemFree_v2);
    if (f != NULL)
        (void)f(p);
    return CUDA_ERROR_OUT_OF_MEMORY;
}

/* Hook: cuMemAlloc_v2 — refused with CUDA_ERROR_OUT_OF_MEMORY over quota. */
HCN_EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    REAL(cuMemAlloc_v2, alloc_v2_t);
    if (!hcn_guard_on())
        return real(dptr, bytesize);
    if (!hcn_reserve(bytesize))
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = real(dptr, bytesize);
    if (r != CUDA_SUCCESS || dptr == NULL) {
        hcn_release(bytesize);
        return r;
    }
    if (hcn_commit(&hcn_ptrs, *dptr, bytesize) != 0)
        return drop_ptr(*dptr);
    return r;
}

/* Hook: cuMemAllocManaged — counted like a device allocation. */
HCN_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    REAL(cuMemAllocManaged, alloc_managed_t);
    if (!hcn_guard_on())
        return real(dptr, bytesize, flags);
    if (!hcn_reserve(bytesize))
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = real(dptr, bytesize, flags);
    if (r != CUDA_SUCCESS || dptr == NULL) {
        hcn_release(bytesize);
        return r;
    }
    if (hcn_commit(&hcn_ptrs, *dptr, bytesize) != 0)
        return drop_ptr(*dptr);
    return r;
}

/* Hook: cuMemAllocPitch_v2 — reserves an estimate (width rounded up to 512
 * bytes × height) and corrects it to pitch × height after the real call. */
HCN_EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t widthInBytes,
                                       size_t height, unsigned int elementSizeBytes)
{
    REAL(cuMemAllocPitch_v2, alloc_pitch_t);
    if (!hcn_guard_on())
        return real(dptr, pPitch, widthInBytes, height, elementSizeBytes);
    uint64_t row = ((uint64_t)widthInBytes + 511) & ~(uint64_t)511;
    uint64_t est;
    if (row < widthInBytes || __builtin_mul_overflow(row, (uint64_t)height, &est) ||
        !hcn_reserve(est))
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = real(dptr, pPitch, widthInBytes, height, elementSizeBytes);
    if (r != CUDA_SUCCESS || dptr == NULL || pPitch == NULL) {
        hcn_release(est);
        return r;
    }
    uint64_t actual;
    if (__builtin_mul_overflow((uint64_t)*pPitch, (uint64_t)height, &actual))
        actual = UINT64_MAX;
    if (actual > est) {
        if (!hcn_reserve(actual - est)) {
            hcn_release(est);
            return drop_ptr(*dptr);
        }
    } else if (actual < est) {
        hcn_release(est - actual);
    }
    if (hcn_commit(&hcn_ptrs, *dptr, actual) != 0)
        return drop_ptr(*dptr);
    return r;
}

static CUresult alloc_async(enum hcn_fn fn, CUdeviceptr *dptr, size_t bytesize, CUstream s)
{
    alloc_async_t real = (alloc_async_t)hcn_real(fn);
    if (HCN_UNLIKELY(real == NULL))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!hcn_guard_on())
        return real(dptr, bytesize, s);
    if (!hcn_reserve(bytesize))
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = real(dptr, bytesize, s);
    if (r != CUDA_SUCCESS || dptr == NULL) {
        hcn_release(bytesize);
        return r;
    }
    if (hcn_commit(&hcn_ptrs, *dptr, bytesize) != 0)
        return drop_ptr(*dptr);
    return r;
}

/* Hook: cuMemAllocAsync — stream-ordered; counted when requested. */
HCN_EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(FN_cuMemAllocAsync, dptr, bytesize, hStream);
}

/* Hook: cuMemAllocAsync_ptsz — per-thread-default-stream variant. */
HCN_EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    return alloc_async(FN_cuMemAllocAsync_ptsz, dptr, bytesize, hStream);
}

/* Hook: cuMemCreate — physical allocation (VMM); the handle is the key. */
HCN_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                                const CUmemAllocationProp *prop, unsigned long long flags)
{
    REAL(cuMemCreate, create_t);
    if (!hcn_guard_on())
        return real(handle, size, prop, flags);
    if (!hcn_reserve(size))
        return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = real(handle, size, prop, flags);
    if (r != CUDA_SUCCESS || handle == NULL) {
        hcn_release(size);
        return r;
    }
    if (hcn_commit(&hcn_handles, *handle, size) != 0) {
        release_t rel = (release_t)hcn_real(FN_cuMemRelease);
        if (rel != NULL)
            (void)rel(*handle);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    return r;
}

/* Hook: cuMemRelease — credits what the matching cuMemCreate took. */
HCN_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    REAL(cuMemRelease, release_t);
    if (!hcn_guard_on())
        return real(handle);
    uint64_t size = 0, old;
    bool had = hcn_map_take(&hcn_handles, handle, &size);
    CUresult r = real(handle);
    if (had) {
        if (r == CUDA_SUCCESS)
            hcn_release(size);
        else
            (void)hcn_map_put(&hcn_handles, handle, size, &old);
    }
    return r;
}

/* Hook: cuMemFree_v2 — credits exactly what was recorded for dptr. */
HCN_EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    REAL(cuMemFree_v2, free_t);
    if (!hcn_guard_on())
        return real(dptr);
    uint64_t size = 0, old;
    bool had = hcn_map_take(&hcn_ptrs, dptr, &size);
    CUresult r = real(dptr);
    if (had) {
        if (r == CUDA_SUCCESS)
            hcn_release(size);
        else
            (void)hcn_map_put(&hcn_ptrs, dptr, size, &old);
    }
    return r;
}

static CUresult free_async(enum hcn_fn fn, CUdeviceptr dptr, CUstream s)
{
    free_async_t real = (free_async_t)hcn_real(fn);
    if (HCN_UNLIKELY(real == NULL))
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!hcn_guard_on())
        return real(dptr, s);
    uint64_t size = 0, old;
    bool had = hcn_map_take(&hcn_ptrs, dptr, &size);
    CUresult r = real(dptr, s);
    if (had) {
        if (r == CUDA_SUCCESS)
            hcn_release(size);
        else
            (void)hcn_map_put(&hcn_ptrs, dptr, size, &old);
    }
    return r;
}

/* Hook: cuMemFreeAsync — credited when the free is enqueued. */
HCN_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    return free_async(FN_cuMemFreeAsync, dptr, hStream);
}

/* Hook: cuMemFreeAsync_ptsz — per-thread-default-stream variant. */
HCN_EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    return free_async(FN_cuMemFreeAsync_ptsz, dptr, hStream);
}

/* Hook: cuMemGetInfo_v2 — total = quota, free = min(real free, quota - used). */
HCN_EXPORT CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    REAL(cuMemGetInfo_v2, getinfo_t);
    CUresult r = real(free, total);
    if (r != CUDA_SUCCESS || !hcn_guard_on())
        return r;
    unsigned long long f = free ? *free : 0, t = total ? *total : 0;
    hcn_clamp(&f, &t);
    if (free)
        *free = (size_t)f;
    if (total)
        *total = (size_t)t;
    return r;
}
