/*
 * One-time initialisation (environment parsing, shared counter), exit and
 * fork handling, and the exported introspection functions.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"

_Atomic int hcn_state = HCN_MODE_UNINIT;
_Thread_local int hcn_tls_depth __attribute__((tls_model("initial-exec")));
static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void say(const char *msg)
{
    size_t n = strlen(msg);
    while (n > 0) {
        ssize_t w = write(STDERR_FILENO, msg, n);
        if (w <= 0)
            return;
        msg += w;
        n -= (size_t)w;
    }
}

static void after_fork_child(void)
{
    hcn_map_after_fork(&hcn_ptrs);
    hcn_map_after_fork(&hcn_handles);
    hcn_counter_after_fork();
}

static void do_init(void)
{
    const char *q = getenv("HCN_VRAM_QUOTA_BYTES");
    const char *id = getenv("HCN_ALLOCATION_ID");
    int mode = HCN_MODE_OFF;
    uint64_t quota = 0;
    char msg[256];
    if (q != NULL) {
        if (hcn_parse_quota(q, &quota) == 0) {
            mode = HCN_MODE_ENFORCE;
        } else {
            char shown[49];
            size_t n = 0;
            for (; q[n] && n < sizeof shown - 1; n++)
                shown[n] = (q[n] >= 0x20 && q[n] < 0x7f) ? q[n] : '?';
            shown[n] = '\0';
            snprintf(msg, sizeof msg,
                     "hcn-vram-guard: HCN_VRAM_QUOTA_BYTES='%s%s' is malformed "
                     "(expected decimal bytes, optional suffix K/M/G/T or Ki/Mi/Gi/Ti); "
                     "refusing ALL device allocations\n",
                     shown, q[n] ? "..." : "");
            say(msg);
            mode = HCN_MODE_REFUSE_ALL;
        }
    }
    if (mode != HCN_MODE_OFF &&
        hcn_counter_init(quota, mode == HCN_MODE_REFUSE_ALL, id) != 0) {
        say("hcn-vram-guard: cannot open shared memory for HCN_ALLOCATION_ID; "
            "falling back to per-process accounting\n");
    }
    pthread_atfork(NULL, NULL, after_fork_child);
    atomic_store_explicit(&hcn_state, mode, memory_order_release);
}

/* Run initialisation exactly once and return the mode. */
int hcn_init_slow(void)
{
    pthread_once(&g_once, do_init);
    return atomic_load_explicit(&hcn_state, memory_order_acquire);
}

__attribute__((constructor)) static void hcn_ctor(void) { (void)hcn_init_slow(); }

__attribute__((destructor)) static void hcn_dtor(void)
{
    if (atomic_load(&hcn_state) > HCN_MODE_OFF)
        hcn_counter_at_exit();
}

/* Introspection: bytes currently accounted (shared across the allocation
 * when HCN_ALLOCATION_ID is set). */
HCN_EXPORT unsigned long long hcn_vram_guard_used_bytes(void)
{
    return hcn_mode() == HCN_MODE_OFF ? 0 : hcn_used();
}

/* Introspection: effective quota in bytes (0 when off or malformed). */
HCN_EXPORT unsigned long long hcn_vram_guard_quota_bytes(void)
{
    return hcn_mode() == HCN_MODE_OFF ? 0 : hcn_quota();
}

/* Introspection: 0 = off, 1 = enforcing, 2 = refusing all (malformed quota). */
HCN_EXPORT int hcn_vram_guard_mode(void) { return hcn_mode(); }

/* Introspection: POSIX shm name of the shared counter, "" if per-process. */
HCN_EXPORT const char *hcn_vram_guard_shm_name(void)
{
    (void)hcn_mode();
    return hcn_shm_name();
}
