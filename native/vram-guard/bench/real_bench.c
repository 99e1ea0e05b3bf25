/*
 * Real-driver benchmark: ns per cuMemAlloc_v2+cuMemFree_v2 pair and per cuMemGetInfo_v2 call on a REAL GPU.
 * Resolves the calls with dlsym on libcuda.so.1, so under LD_PRELOAD=libvramguard.so it measures the hooks
 * and without it the bare driver. scripts/device-session.sh runs it both ways, interleaved, and compares.
 * Usage: real_bench SIZE_BYTES PAIRS INFO_CALLS  -> one JSON object on stdout.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../include/cuda_decls.h"

typedef CUresult (*init_fn)(unsigned);
typedef CUresult (*device_get_fn)(int *, int);
typedef CUresult (*ctx_retain_fn)(void **, int);
typedef CUresult (*ctx_set_fn)(void *);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*info_fn)(size_t *, size_t *);

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *need(void *lib, const char *name)
{
    void *fn = dlsym(lib, name);
    if (fn == NULL) {
        fprintf(stderr, "real_bench: %s not found\n", name);
        exit(2);
    }
    return fn;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: real_bench SIZE_BYTES PAIRS INFO_CALLS\n");
        return 2;
    }
    size_t size = strtoull(argv[1], NULL, 10);
    long pairs = strtol(argv[2], NULL, 10), infos = strtol(argv[3], NULL, 10);
    void *lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (lib == NULL) {
        fprintf(stderr, "real_bench: %s\n", dlerror());
        return 2;
    }
    int dev = 0;
    void *ctx = NULL;
    if (((init_fn)need(lib, "cuInit"))(0) != CUDA_SUCCESS ||
        ((device_get_fn)need(lib, "cuDeviceGet"))(&dev, 0) != CUDA_SUCCESS ||
        ((ctx_retain_fn)need(lib, "cuDevicePrimaryCtxRetain"))(&ctx, dev) != CUDA_SUCCESS ||
        ((ctx_set_fn)need(lib, "cuCtxSetCurrent"))(ctx) != CUDA_SUCCESS) {
        fprintf(stderr, "real_bench: no CUDA context\n");
        return 2;
    }
    alloc_fn alloc = (alloc_fn)need(lib, "cuMemAlloc_v2");
    free_fn release = (free_fn)need(lib, "cuMemFree_v2");
    info_fn info = (info_fn)need(lib, "cuMemGetInfo_v2");
    CUdeviceptr p;
    for (int i = 0; i < 100; i++) { /* warm the driver's pools */
        if (alloc(&p, size) != CUDA_SUCCESS || release(p) != CUDA_SUCCESS)
            return 3;
    }
    double t0 = now_ns();
    for (long i = 0; i < pairs; i++) {
        if (alloc(&p, size) != CUDA_SUCCESS || release(p) != CUDA_SUCCESS)
            return 3;
    }
    double pair_ns = (now_ns() - t0) / (double)pairs;
    size_t f, t;
    t0 = now_ns();
    for (long i = 0; i < infos; i++) info(&f, &t);
    double info_ns = (now_ns() - t0) / (double)infos;
    printf("{\"size\": %zu, \"pairs\": %ld, \"pair_ns\": %.1f, \"info_calls\": %ld, \"info_ns\": %.1f, \"total\": %zu}\n",
           size, pairs, pair_ns, infos, info_ns, t);
    return 0;
}
