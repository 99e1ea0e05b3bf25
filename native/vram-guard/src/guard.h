/*
 * Internal interfaces of vram-guard.  Everything declared here has hidden
 * visibility (the library is built with -fvisibility=hidden); only the
 * hooks and the hcn_vram_guard_* introspection functions are exported.
 */
#ifndef HCN_GUARD_H
#define HCN_GUARD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

/* hooked functions are exported (the rest of the library is hidden) */
#pragma GCC visibility push(default)
#include "cuda_decls.h"
#pragma GCC visibility pop

#define HCN_EXPORT __attribute__((visibility("default")))
#define HCN_LIKELY(x) __builtin_expect(!!(x), 1)
#define HCN_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* For the dlsym path only: sanitizer runtimes call dlsym while they
 * initialise, before instrumented code may run. */
#define HCN_NO_SANITIZE __attribute__((no_sanitize("address", "undefined")))

/* Largest accepted quota (4 EiB): keeps every sum below 2^64. */
#define HCN_QUOTA_MAX (1ULL << 62)

/* ---- quota_parse.c ---- */
/* Parse "<digits>[K|M|G|T|Ki|Mi|Gi|Ti]"; 0 on success, -1 if malformed. */
int hcn_parse_quota(const char *s, uint64_t *out);

/* ---- init.c ---- */
enum hcn_mode {
    HCN_MODE_UNINIT = -1,
    HCN_MODE_OFF = 0,        /* HCN_VRAM_QUOTA_BYTES unset: pass-through   */
    HCN_MODE_ENFORCE = 1,    /* valid quota                                */
    HCN_MODE_REFUSE_ALL = 2, /* malformed quota: every allocation refused  */
};
/* Published once by init with release semantics; read with acquire. */
extern _Atomic int hcn_state;
/* Re-entrancy depth: >0 while a runtime hook is inside the real runtime. */
extern _Thread_local int hcn_tls_depth __attribute__((tls_model("initial-exec")));
int hcn_init_slow(void);

/* Current mode, initialising on first use. */
static inline int hcn_mode(void)
{
    int s = atomic_load_explicit(&hcn_state, memory_order_acquire);
    return HCN_LIKELY(s >= 0) ? s : hcn_init_slow();
}
/* True when a hook must account (guard configured, not nested). */
static inline bool hcn_guard_on(void)
{
    return hcn_mode() != HCN_MODE_OFF && hcn_tls_depth == 0;
}

/* ---- counter.c ---- */
/* Open the shared counter for `alloc_id` (NULL: per-process). 0 / -1. */
int hcn_counter_init(uint64_t quota, bool refuse_all, const char *alloc_id);
bool hcn_reserve(uint64_t size);   /* false: would exceed the quota      */
void hcn_release(uint64_t size);   /* undo a reservation / credit a free */
uint64_t hcn_used(void);
uint64_t hcn_quota(void);
const char *hcn_shm_name(void);    /* "" when per-process                */
void hcn_counter_at_exit(void);    /* credit what this process still holds */
void hcn_counter_after_fork(void); /* child: holds nothing                */
/* Clamp a (free,total) pair to the quota: total=quota, free=min(free, quota-used). */
void hcn_clamp(unsigned long long *free_bytes, unsigned long long *total_bytes);

/* ---- ptrmap.c ---- */
struct hcn_map;
extern struct hcn_map hcn_ptrs;    /* device pointers -> size            */
extern struct hcn_map hcn_handles; /* cuMemCreate handles -> size        */
/* Insert key; returns -1 on allocation failure. *old gets a replaced size (or 0). */
int hcn_map_put(struct hcn_map *m, uint64_t key, uint64_t size, uint64_t *old);
/* Remove key; true and *size if it was present. */
bool hcn_map_take(struct hcn_map *m, uint64_t key, uint64_t *size);
void hcn_map_after_fork(struct hcn_map *m);

/* Record a successful allocation of `size` already reserved; 0 = ok,
 * -1 = could not record (the reservation is rolled back, caller frees). */
int hcn_commit(struct hcn_map *m, uint64_t key, uint64_t size);

/* ---- resolve.c ---- */
enum hcn_fn {
    FN_cuMemAlloc_v2, FN_cuMemAllocManaged, FN_cuMemAllocPitch_v2,
    FN_cuMemAllocAsync, FN_cuMemAllocAsync_ptsz, FN_cuMemCreate,
    FN_cuMemRelease, FN_cuMemFree_v2, FN_cuMemFreeAsync,
    FN_cuMemFreeAsync_ptsz, FN_cuMemGetInfo_v2, FN_cuGetProcAddress,
    FN_cuGetProcAddress_v2, FN_cudaMalloc, FN_cudaFree, FN_cudaMemGetInfo,
    FN_nvmlDeviceGetMemoryInfo, FN_nvmlDeviceGetMemoryInfo_v2, FN_COUNT
};
typedef void *(*hcn_dlsym_fn)(void *, const char *);
extern _Atomic(void *) hcn_real_tab[FN_COUNT];
void *hcn_resolve_slow(enum hcn_fn fn);
/* The real (next) implementation of a hooked function, or NULL. */
static inline void *hcn_real(enum hcn_fn fn)
{
    void *p = atomic_load_explicit(&hcn_real_tab[fn], memory_order_acquire);
    return HCN_LIKELY(p != NULL) ? p : hcn_resolve_slow(fn);
}
hcn_dlsym_fn hcn_real_dlsym(void) HCN_NO_SANITIZE;
void *hcn_hook_addr(enum hcn_fn fn) HCN_NO_SANITIZE;
void hcn_offer_real(enum hcn_fn fn, void *p) HCN_NO_SANITIZE;
/* Exact exported-name lookup; -1 if not hooked. */
int hcn_lookup_symbol(const char *name) HCN_NO_SANITIZE;
/* strcmp(a, b) == 0 without going through (possibly intercepted) libc. */
bool hcn_streq(const char *a, const char *b) HCN_NO_SANITIZE;
/* cuGetProcAddress-style lookup (base names + version + flags); -1 if not hooked. */
int hcn_lookup_proc(const char *name, int cuda_version, cuuint64_t flags);

#endif
