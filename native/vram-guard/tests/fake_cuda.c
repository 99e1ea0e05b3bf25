/*
 * FAKE CUDA driver / runtime / NVML implementation — test double only.
 * See fake_cuda.h.  The exported CUDA names are thin wrappers around
 * static implementations; cuGetProcAddress hands out the fake_* aliases so
 * that what it returns is never interposed by the guard itself.
 * Like the real runtime, cudaMalloc/cudaFree/cudaMemGetInfo call the driver
 * entry points through the dynamic linker (and therefore through the guard).
 */
#include <stdatomic.h>
#include <string.h>

#include "fake_cuda.h"

static _Atomic unsigned long long g_free = 8ULL << 30;
static _Atomic unsigned long long g_total = 16ULL << 30;
static _Atomic unsigned long long g_next = 0x7f0000000000ULL;
static _Atomic long g_allocs, g_frees, g_infos;

void fake_cuda_set_mem(unsigned long long free_bytes, unsigned long long total_bytes)
{
    atomic_store(&g_free, free_bytes);
    atomic_store(&g_total, total_bytes);
}
long fake_cuda_alloc_calls(void) { return atomic_load(&g_allocs); }
long fake_cuda_free_calls(void) { return atomic_load(&g_frees); }
long fake_cuda_info_calls(void) { return atomic_load(&g_infos); }

static CUresult fake_alloc(CUdeviceptr *dptr, size_t size)
{
    atomic_fetch_add_explicit(&g_allocs, 1, memory_order_relaxed);
    if (dptr == NULL || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (size > atomic_load_explicit(&g_free, memory_order_relaxed))
        return CUDA_ERROR_OUT_OF_MEMORY;
    unsigned long long step = (size + 255) & ~255ULL;
    *dptr = atomic_fetch_add_explicit(&g_next, step, memory_order_relaxed);
    return CUDA_SUCCESS;
}

static CUresult fake_free(CUdeviceptr p)
{
    atomic_fetch_add_explicit(&g_frees, 1, memory_order_relaxed);
    return p == 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

static CUresult fake_info(size_t *free, size_t *total)
{
    atomic_fetch_add_explicit(&g_infos, 1, memory_order_relaxed);
    if (free == NULL || total == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *free = (size_t)atomic_load_explicit(&g_free, memory_order_relaxed);
    *total = (size_t)atomic_load_explicit(&g_total, memory_order_relaxed);
    return CUDA_SUCCESS;
}

/* ---- driver API ---- */
CUresult fake_cuMemAlloc_v2(CUdeviceptr *d, size_t s) { return fake_alloc(d, s); }
CUresult fake_cuMemFree_v2(CUdeviceptr p) { return fake_free(p); }
CUresult fake_cuMemGetInfo_v2(size_t *f, size_t *t) { return fake_info(f, t); }
static CUresult fake_managed(CUdeviceptr *d, size_t s, unsigned int fl) { (void)fl; return fake_alloc(d, s); }
static CUresult fake_pitch(CUdeviceptr *d, size_t *pitch, size_t w, size_t h, unsigned int e)
{
    (void)e;
    if (pitch == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    size_t row = (w + FAKE_PITCH_ALIGN - 1) / FAKE_PITCH_ALIGN * FAKE_PITCH_ALIGN;
    CUresult r = fake_alloc(d, row * h);
    if (r == CUDA_SUCCESS)
        *pitch = row;
    return r;
}
static CUresult fake_async(CUdeviceptr *d, size_t s, CUstream st) { (void)st; return fake_alloc(d, s); }
static CUresult fake_free_async(CUdeviceptr p, CUstream st) { (void)st; return fake_free(p); }
static CUresult fake_create(CUmemGenericAllocationHandle *h, size_t s, const CUmemAllocationProp *p,
                            unsigned long long fl)
{
    (void)p;
    (void)fl;
    return fake_alloc(h, s);
}
static CUresult fake_release(CUmemGenericAllocationHandle h) { return fake_free(h); }

CUresult cuMemAlloc_v2(CUdeviceptr *d, size_t s) { return fake_alloc(d, s); }
CUresult cuMemAllocManaged(CUdeviceptr *d, size_t s, unsigned int f) { return fake_managed(d, s, f); }
CUresult cuMemAllocPitch_v2(CUdeviceptr *d, size_t *p, size_t w, size_t h, unsigned int e) { return fake_pitch(d, p, w, h, e); }
CUresult cuMemAllocAsync(CUdeviceptr *d, size_t s, CUstream st) { return fake_async(d, s, st); }
CUresult cuMemAllocAsync_ptsz(CUdeviceptr *d, size_t s, CUstream st) { return fake_async(d, s, st); }
CUresult cuMemCreate(CUmemGenericAllocationHandle *h, size_t s, const CUmemAllocationProp *p,
                     unsigned long long f) { return fake_create(h, s, p, f); }
CUresult cuMemRelease(CUmemGenericAllocationHandle h) { return fake_release(h); }
CUresult cuMemFree_v2(CUdeviceptr p) { return fake_free(p); }
CUresult cuMemFreeAsync(CUdeviceptr p, CUstream st) { return fake_free_async(p, st); }
CUresult cuMemFreeAsync_ptsz(CUdeviceptr p, CUstream st) { return fake_free_async(p, st); }
CUresult cuMemGetInfo_v2(size_t *f, size_t *t) { return fake_info(f, t); }

/* Non-interposable copies handed out by cuGetProcAddress. */
CUresult fake_gpa_managed(CUdeviceptr *d, size_t s, unsigned int f) { return fake_managed(d, s, f); }
CUresult fake_gpa_pitch(CUdeviceptr *d, size_t *p, size_t w, size_t h, unsigned int e) { return fake_pitch(d, p, w, h, e); }
CUresult fake_gpa_async(CUdeviceptr *d, size_t s, CUstream st) { return fake_async(d, s, st); }
CUresult fake_gpa_free_async(CUdeviceptr p, CUstream st) { return fake_free_async(p, st); }
CUresult fake_gpa_create(CUmemGenericAllocationHandle *h, size_t s, const CUmemAllocationProp *p,
                         unsigned long long f) { return fake_create(h, s, p, f); }
CUresult fake_gpa_release(CUmemGenericAllocationHandle h) { return fake_release(h); }
CUresult fake_gpa_v1(const char *sym, void **pfn, int v, cuuint64_t fl);
CUresult fake_gpa_v2(const char *sym, void **pfn, int v, cuuint64_t fl, CUdriverProcAddressQueryResult *st);

static void *lookup(const char *s, int version)
{
    static const struct { const char *name; void *fn; } tab[] = {
        {"cuMemAlloc", (void *)fake_cuMemAlloc_v2},
        {"cuMemFree", (void *)fake_cuMemFree_v2},
        {"cuMemGetInfo", (void *)fake_cuMemGetInfo_v2},
        {"cuMemAllocManaged", (void *)fake_gpa_managed},
        {"cuMemAllocPitch", (void *)fake_gpa_pitch},
        {"cuMemAllocAsync", (void *)fake_gpa_async},
        {"cuMemFreeAsync", (void *)fake_gpa_free_async},
        {"cuMemCreate", (void *)fake_gpa_create},
        {"cuMemRelease", (void *)fake_gpa_release},
        {"fakeUnhooked", (void *)fake_cuda_alloc_calls},
    };
    if (s == NULL)
        return NULL;
    if (strcmp(s, "cuGetProcAddress") == 0)
        return version >= 12000 ? (void *)fake_gpa_v2 : (void *)fake_gpa_v1;
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strcmp(s, tab[i].name) == 0)
            return tab[i].fn;
    return NULL;
}

CUresult fake_gpa_v1(const char *sym, void **pfn, int v, cuuint64_t fl)
{
    (void)fl;
    if (pfn == NULL)
        return CUDA_ERROR_INVALID_VALUE;
    *pfn = lookup(sym, v);
    return *pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}
CUresult fake_gpa_v2(const char *sym, void **pfn, int v, cuuint64_t fl, CUdriverProcAddressQueryResult *st)
{
    CUresult r = fake_gpa_v1(sym, pfn, v, fl);
    if (st)
        *st = r == CUDA_SUCCESS ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return r;
}
CUresult cuGetProcAddress(const char *sym, void **pfn, int v, cuuint64_t fl) { return fake_gpa_v1(sym, pfn, v, fl); }
CUresult cuGetProcAddress_v2(const char *sym, void **pfn, int v, cuuint64_t fl, CUdriverProcAddressQueryResult *st)
{
    return fake_gpa_v2(sym, pfn, v, fl, st);
}

/* ---- runtime API: built on the driver entry points, like the real one ---- */
cudaError_t cudaMalloc(void **p, size_t s)
{
    CUdeviceptr d = 0;
    CUresult r = cuMemAlloc_v2(&d, s);
    if (r != CUDA_SUCCESS)
        return r == CUDA_ERROR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation : cudaErrorInvalidValue;
    *p = (void *)(unsigned long)d;
    return cudaSuccess;
}
cudaError_t cudaFree(void *p)
{
    if (p == NULL)
        return cudaSuccess;
    return cuMemFree_v2((CUdeviceptr)(unsigned long)p) == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaMemGetInfo(size_t *f, size_t *t)
{
    return cuMemGetInfo_v2(f, t) == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/* ---- NVML ---- */
#define FAKE_NVML_RESERVED (32ull << 20)
nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, nvmlMemory_v2_t *m)
{
    (void)dev;
    atomic_fetch_add_explicit(&g_infos, 1, memory_order_relaxed);
    if (m == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    m->total = atomic_load(&g_total);
    m->free = atomic_load(&g_free);
    m->reserved = m->free >= FAKE_NVML_RESERVED ? FAKE_NVML_RESERVED : m->free;
    m->free -= m->reserved;
    m->used = m->total - m->reserved - m->free;
    return NVML_SUCCESS;
}
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *m)
{
    (void)dev;
    atomic_fetch_add_explicit(&g_infos, 1, memory_order_relaxed);
    if (m == NULL)
        return NVML_ERROR_INVALID_ARGUMENT;
    m->free = atomic_load(&g_free);
    m->total = atomic_load(&g_total);
    m->used = m->total - m->free;
    return NVML_SUCCESS;
}
