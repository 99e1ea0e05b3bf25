/*
 * Usage counter.  With HCN_ALLOCATION_ID set, the counter lives in POSIX
 * shared memory "/hcn-vram-<sanitised id>-<fnv64 hex>" shared by every
 * guarded process of the allocation; otherwise it is process-local.
 *
 * Reservation is a compare-and-swap loop: the counter is only ever moved
 * to a value <= quota, so concurrent threads/processes cannot overshoot,
 * not even transiently.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guard.h"

#define HCN_SHM_MAGIC 0x48434e5652414d31ULL /* "HCNVRAM1" */

struct hcn_shared {
    _Atomic uint64_t magic;
    _Atomic uint64_t used;
};

/* Written only by hcn_counter_init(), before hcn_state is published
 * (release); every reader first loads hcn_state (acquire). */
static struct hcn_shared g_local;
static struct hcn_shared *g_counter = &g_local;
static uint64_t g_quota;
static bool g_refuse_all;
static char g_shm_name[128];

/* Bytes this process holds in the counter (credited back at exit). */
static _Atomic uint64_t g_proc_used;
/* Set by the exit handler: later frees must not credit twice. */
static _Atomic int g_exited;

static uint64_t fnv1a64(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 0x100000001b3ULL;
    }
    return h;
}

static void make_shm_name(const char *id)
{
    char clean[65];
    size_t n = 0;
    for (const char *p = id; *p && n < sizeof clean - 1; p++) {
        char c = *p;
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
        clean[n++] = ok ? c : '_';
    }
    clean[n] = '\0';
    snprintf(g_shm_name, sizeof g_shm_name, "/hcn-vram-%s-%016llx", clean,
             (unsigned long long)fnv1a64(id));
}

static struct hcn_shared *open_shared(void)
{
    int fd = shm_open(g_shm_name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0 ||
        (st.st_size < (off_t)sizeof(struct hcn_shared) &&
         ftruncate(fd, sizeof(struct hcn_shared)) != 0)) {
        close(fd);
        return NULL;
    }
    void *p = mmap(NULL, sizeof(struct hcn_shared), PROT_READ | PROT_WRITE,
                   MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    struct hcn_shared *s = p;
    uint64_t expect = 0;
    if (!atomic_compare_exchange_strong(&s->magic, &expect, HCN_SHM_MAGIC) &&
        expect != HCN_SHM_MAGIC) {
        munmap(p, sizeof(struct hcn_shared));
        return NULL;
    }
    return s;
}

/* Configure the counter.  Called once from init, before publication.
 * Returns -1 if the shared segment could not be used (per-process fallback). */
int hcn_counter_init(uint64_t quota, bool refuse_all, const char *alloc_id)
{
    g_quota = refuse_all ? 0 : quota;
    g_refuse_all = refuse_all;
    if (alloc_id == NULL || *alloc_id == '\0' || refuse_all)
        return 0;
    make_shm_name(alloc_id);
    struct hcn_shared *s = open_shared();
    if (s == NULL) {
        g_shm_name[0] = '\0';
        return -1;
    }
    g_counter = s;
    return 0;
}

/* Reserve `size` bytes; false (nothing changed) if it would exceed the quota. */
bool hcn_reserve(uint64_t size)
{
    uint64_t quota = g_quota;
    if (HCN_UNLIKELY(g_refuse_all || size > quota))
        return false;
    uint64_t cur = atomic_load_explicit(&g_counter->used, memory_order_relaxed);
    do {
        if (cur > quota - size)
            return false;
    } while (!atomic_compare_exchange_weak_explicit(&g_counter->used, &cur, cur + size,
                                                    memory_order_acq_rel,
                                                    memory_order_relaxed));
    atomic_fetch_add_explicit(&g_proc_used, size, memory_order_relaxed);
    return true;
}

static void sat_sub(_Atomic uint64_t *v, uint64_t size)
{
    uint64_t cur = atomic_load_explicit(v, memory_order_relaxed);
    uint64_t next;
    do {
        next = cur > size ? cur - size : 0;
    } while (!atomic_compare_exchange_weak_explicit(v, &cur, next, memory_order_acq_rel,
                                                    memory_order_relaxed));
}

/* Give back `size` bytes (failed allocation or successful free). */
void hcn_release(uint64_t size)
{
    if (HCN_UNLIKELY(atomic_load_explicit(&g_exited, memory_order_relaxed)))
        return;
    sat_sub(&g_counter->used, size);
    sat_sub(&g_proc_used, size);
}

/* Bytes currently accounted (allocation-wide when shared). */
uint64_t hcn_used(void)
{
    return atomic_load_explicit(&g_counter->used, memory_order_acquire);
}

/* Effective quota (0 in refuse-all mode). */
uint64_t hcn_quota(void) { return g_quota; }

/* Name of the shared-memory segment, "" when the counter is per-process. */
const char *hcn_shm_name(void) { return g_shm_name; }

/* Process exit: the driver frees everything the process still holds, so
 * credit it to the shared counter once and ignore later frees. */
void hcn_counter_at_exit(void)
{
    if (atomic_exchange(&g_exited, 1))
        return;
    uint64_t mine = atomic_exchange(&g_proc_used, 0);
    if (g_counter != &g_local && mine != 0)
        sat_sub(&g_counter->used, mine);
}

/* Forked child: it inherited no device memory (CUDA contexts do not
 * survive fork), so it holds nothing. */
void hcn_counter_after_fork(void)
{
    uint64_t mine = atomic_exchange(&g_proc_used, 0);
    if (g_counter == &g_local)
        sat_sub(&g_local.used, mine);
}

/* total := quota; free := min(real free, quota - used). */
void hcn_clamp(unsigned long long *free_bytes, unsigned long long *total_bytes)
{
    uint64_t used = hcn_used();
    uint64_t quota = g_quota;
    uint64_t avail = used < quota ? quota - used : 0;
    if (free_bytes && *free_bytes > avail)
        *free_bytes = avail;
    if (total_bytes)
        *total_bytes = quota;
}
