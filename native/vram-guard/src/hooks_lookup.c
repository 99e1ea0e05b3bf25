/*
 * Entry-point lookup hooks: dlsym and cuGetProcAddress(_v2).  A lookup of a
 * hooked name returns the hook; the pointer the real lookup produced is
 * remembered as the real implementation (this is how libraries opened with
 * RTLD_LOCAL, e.g. libcuda loaded by the runtime, are reached).
 */
#include <string.h>

#include "guard.h"

/* Declared here rather than via <dlfcn.h>, whose nonnull attribute would
 * let the compiler drop our NULL checks on `name`. */
HCN_EXPORT void *dlsym(void *handle, const char *name) HCN_NO_SANITIZE;

typedef CUresult (*gpa_t)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa2_t)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* Hook: dlsym.  Names that are not hooked are forwarded as a tail call so
 * that glibc still sees the original caller (RTLD_NEXT semantics). */
HCN_EXPORT void *dlsym(void *handle, const char *name)
{
    hcn_dlsym_fn real = hcn_real_dlsym();
    if (HCN_UNLIKELY(real == NULL))
        return NULL;
    int fn = name != NULL ? hcn_lookup_symbol(name) : -1;
    if (fn < 0) {
        if (name != NULL && hcn_streq(name, "dlsym") && real(handle, name) != NULL)
            return (void *)dlsym;
        return real(handle, name);
    }
    void *p = real(handle, name);
    if (p == NULL)
        return NULL; /* keep "not found" answers truthful */
    hcn_offer_real((enum hcn_fn)fn, p);
    return hcn_hook_addr((enum hcn_fn)fn);
}

static void wrap(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    if (symbol == NULL || pfn == NULL || *pfn == NULL)
        return;
    int fn = hcn_lookup_proc(symbol, version, flags);
    if (fn < 0)
        return;
    hcn_offer_real((enum hcn_fn)fn, *pfn);
    *pfn = hcn_hook_addr((enum hcn_fn)fn);
}

/* Hook: cuGetProcAddress (CUDA 11.3+ signature). */
HCN_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion,
                                     cuuint64_t flags)
{
    gpa_t real = (gpa_t)hcn_real(FN_cuGetProcAddress);
    if (HCN_UNLIKELY(real == NULL))
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, cudaVersion, flags);
    if (r == CUDA_SUCCESS)
        wrap(symbol, pfn, cudaVersion, flags);
    return r;
}

/* Hook: cuGetProcAddress_v2 (CUDA 12+ signature with symbolStatus). */
HCN_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                        cuuint64_t flags,
                                        CUdriverProcAddressQueryResult *symbolStatus)
{
    gpa2_t real = (gpa2_t)hcn_real(FN_cuGetProcAddress_v2);
    if (HCN_UNLIKELY(real == NULL))
        return CUDA_ERROR_NOT_INITIALIZED;
    CUresult r = real(symbol, pfn, cudaVersion, flags, symbolStatus);
    if (r == CUDA_SUCCESS)
        wrap(symbol, pfn, cudaVersion, flags);
    return r;
}
