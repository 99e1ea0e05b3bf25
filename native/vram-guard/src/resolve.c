/*
 * Finding the real implementations behind the hooks, and mapping symbol
 * names (dlsym / cuGetProcAddress) to hooks.
 */
#include <dlfcn.h>
#include <string.h>

#include "guard.h"

enum hcn_lib { LIB_DRIVER, LIB_RUNTIME, LIB_NVML };

struct hook_desc {
    const char *name;
    void *hook;
    enum hcn_lib lib;
};

static const struct hook_desc k_hooks[FN_COUNT] = {
    [FN_cuMemAlloc_v2] = {"cuMemAlloc_v2", (void *)cuMemAlloc_v2, LIB_DRIVER},
    [FN_cuMemAllocManaged] = {"cuMemAllocManaged", (void *)cuMemAllocManaged, LIB_DRIVER},
    [FN_cuMemAllocPitch_v2] = {"cuMemAllocPitch_v2", (void *)cuMemAllocPitch_v2, LIB_DRIVER},
    [FN_cuMemAllocAsync] = {"cuMemAllocAsync", (void *)cuMemAllocAsync, LIB_DRIVER},
    [FN_cuMemAllocAsync_ptsz] = {"cuMemAllocAsync_ptsz", (void *)cuMemAllocAsync_ptsz, LIB_DRIVER},
    [FN_cuMemCreate] = {"cuMemCreate", (void *)cuMemCreate, LIB_DRIVER},
    [FN_cuMemRelease] = {"cuMemRelease", (void *)cuMemRelease, LIB_DRIVER},
    [FN_cuMemFree_v2] = {"cuMemFree_v2", (void *)cuMemFree_v2, LIB_DRIVER},
    [FN_cuMemFreeAsync] = {"cuMemFreeAsync", (void *)cuMemFreeAsync, LIB_DRIVER},
    [FN_cuMemFreeAsync_ptsz] = {"cuMemFreeAsync_ptsz", (void *)cuMemFreeAsync_ptsz, LIB_DRIVER},
    [FN_cuMemGetInfo_v2] = {"cuMemGetInfo_v2", (void *)cuMemGetInfo_v2, LIB_DRIVER},
    [FN_cuGetProcAddress] = {"cuGetProcAddress", (void *)cuGetProcAddress, LIB_DRIVER},
    [FN_cuGetProcAddress_v2] = {"cuGetProcAddress_v2", (void *)cuGetProcAddress_v2, LIB_DRIVER},
    [FN_cudaMalloc] = {"cudaMalloc", (void *)cudaMalloc, LIB_RUNTIME},
    [FN_cudaFree] = {"cudaFree", (void *)cudaFree, LIB_RUNTIME},
    [FN_cudaMemGetInfo] = {"cudaMemGetInfo", (void *)cudaMemGetInfo, LIB_RUNTIME},
    [FN_nvmlDeviceGetMemoryInfo] = {"nvmlDeviceGetMemoryInfo", (void *)nvmlDeviceGetMemoryInfo, LIB_NVML},
    [FN_nvmlDeviceGetMemoryInfo_v2] = {"nvmlDeviceGetMemoryInfo_v2", (void *)nvmlDeviceGetMemoryInfo_v2, LIB_NVML},
};

static const char *const k_driver_libs[] = {"libcuda.so.1", "libcuda.so", NULL};
static const char *const k_runtime_libs[] = {"libcudart.so", "libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0", NULL};
static const char *const k_nvml_libs[] = {"libnvidia-ml.so.1", "libnvidia-ml.so", NULL};

/* Real implementations, filled lazily (first non-NULL value wins). */
_Atomic(void *) hcn_real_tab[FN_COUNT];
static _Atomic(hcn_dlsym_fn) g_real_dlsym;

/* glibc's dlsym, obtained without going through our own dlsym hook. */
hcn_dlsym_fn hcn_real_dlsym(void)
{
    hcn_dlsym_fn f = atomic_load_explicit(&g_real_dlsym, memory_order_acquire);
    if (HCN_LIKELY(f != NULL))
        return f;
    f = (hcn_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (f == NULL)
        f = (hcn_dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    atomic_store_explicit(&g_real_dlsym, f, memory_order_release);
    return f;
}

/* Address of the hook for fn. */
void *hcn_hook_addr(enum hcn_fn fn) { return k_hooks[fn].hook; }

/* Remember p as fn's real implementation (unless p is our own hook). */
void hcn_offer_real(enum hcn_fn fn, void *p)
{
    if (p == NULL || p == k_hooks[fn].hook)
        return;
    void *expected = NULL;
    atomic_compare_exchange_strong(&hcn_real_tab[fn], &expected, p);
}

/* Slow path of hcn_real(): RTLD_NEXT first, then an already-loaded
 * library of the right family (covers libraries dlopen'ed RTLD_LOCAL). */
void *hcn_resolve_slow(enum hcn_fn fn)
{
    hcn_dlsym_fn real_dlsym = hcn_real_dlsym();
    if (real_dlsym == NULL)
        return NULL;
    hcn_offer_real(fn, real_dlsym(RTLD_NEXT, k_hooks[fn].name));
    void *p = atomic_load_explicit(&hcn_real_tab[fn], memory_order_acquire);
    if (p != NULL)
        return p;
    const char *const *libs = k_hooks[fn].lib == LIB_DRIVER    ? k_driver_libs
                              : k_hooks[fn].lib == LIB_RUNTIME ? k_runtime_libs
                                                               : k_nvml_libs;
    for (; *libs != NULL && p == NULL; libs++) {
        void *h = dlopen(*libs, RTLD_LAZY | RTLD_NOLOAD);
        if (h == NULL)
            continue;
        hcn_offer_real(fn, real_dlsym(h, k_hooks[fn].name));
        dlclose(h);
        p = atomic_load_explicit(&hcn_real_tab[fn], memory_order_acquire);
    }
    return p;
}

/* strcmp(a, b) == 0, usable before sanitizer runtimes are initialised. */
bool hcn_streq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* Exact exported symbol name -> hook index, -1 if not hooked. */
int hcn_lookup_symbol(const char *name)
{
    if (!((name[0] == 'c' && name[1] == 'u') || name[0] == 'n'))
        return -1;
    for (int i = 0; i < FN_COUNT; i++)
        if (hcn_streq(name, k_hooks[i].name))
            return i;
    return -1;
}

/* cuGetProcAddress names are base names resolved by version and flags. */
int hcn_lookup_proc(const char *name, int cuda_version, cuuint64_t flags)
{
    bool ptds = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0;
    if (cuda_version >= 3020) {
        if (strcmp(name, "cuMemAlloc") == 0) return FN_cuMemAlloc_v2;
        if (strcmp(name, "cuMemAllocPitch") == 0) return FN_cuMemAllocPitch_v2;
        if (strcmp(name, "cuMemFree") == 0) return FN_cuMemFree_v2;
        if (strcmp(name, "cuMemGetInfo") == 0) return FN_cuMemGetInfo_v2;
    }
    if (strcmp(name, "cuMemAllocAsync") == 0)
        return ptds ? FN_cuMemAllocAsync_ptsz : FN_cuMemAllocAsync;
    if (strcmp(name, "cuMemFreeAsync") == 0)
        return ptds ? FN_cuMemFreeAsync_ptsz : FN_cuMemFreeAsync;
    if (strcmp(name, "cuGetProcAddress") == 0)
        return cuda_version >= 12000 ? FN_cuGetProcAddress_v2 : FN_cuGetProcAddress;
    int i = hcn_lookup_symbol(name);
    /* runtime / NVML names are never served by cuGetProcAddress */
    return (i >= 0 && k_hooks[i].lib == LIB_DRIVER) ? i : -1;
}
