/*
 * Pointer -> size map: 64 stripes, each an open-addressing (linear probing,
 * backward-shift deletion) table guarded by its own spinlock.  Key 0 is the
 * empty marker (a NULL device pointer is never recorded).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"

#define STRIPE_BITS 6
#define STRIPES (1u << STRIPE_BITS)
#define INITIAL_CAP 16u

struct entry {
    uint64_t key;
    uint64_t size;
};

struct stripe {
    _Atomic int lock;
    uint32_t cap;   /* power of two, 0 before first insert */
    uint32_t count;
    struct entry *tab;
} __attribute__((aligned(64)));

struct hcn_map {
    struct stripe s[STRIPES];
};

/* The maps' contents are only touched under their stripe lock. */
struct hcn_map hcn_ptrs;
struct hcn_map hcn_handles;

static inline uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static inline void lock(struct stripe *s)
{
    while (atomic_exchange_explicit(&s->lock, 1, memory_order_acquire)) {
        unsigned spins = 0;
        while (atomic_load_explicit(&s->lock, memory_order_relaxed)) {
            if (++spins < 128) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#endif
            } else {
                sched_yield();
                spins = 0;
            }
        }
    }
}

static inline void unlock(struct stripe *s)
{
    atomic_store_explicit(&s->lock, 0, memory_order_release);
}

static inline struct stripe *stripe_of(struct hcn_map *m, uint64_t h)
{
    return &m->s[h >> (64 - STRIPE_BITS)];
}

/* Insert without growth; caller guarantees a free slot. */
static void raw_put(struct stripe *s, uint64_t key, uint64_t size, uint64_t h,
                    uint64_t *old)
{
    uint32_t mask = s->cap - 1;
    for (uint32_t i = (uint32_t)h & mask;; i = (i + 1) & mask) {
        if (s->tab[i].key == key) {
            if (old)
                *old = s->tab[i].size;
            s->tab[i].size = size;
            return;
        }
        if (s->tab[i].key == 0) {
            s->tab[i].key = key;
            s->tab[i].size = size;
            s->count++;
            return;
        }
    }
}

static int grow(struct stripe *s)
{
    uint32_t ncap = s->cap ? s->cap * 2 : INITIAL_CAP;
    struct entry *nt = calloc(ncap, sizeof *nt);
    if (nt == NULL)
        return -1;
    struct entry *ot = s->tab;
    uint32_t ocap = s->cap;
    s->tab = nt;
    s->cap = ncap;
    s->count = 0;
    for (uint32_t i = 0; i < ocap; i++)
        if (ot[i].key != 0)
            raw_put(s, ot[i].key, ot[i].size, mix(ot[i].key), NULL);
    free(ot);
    return 0;
}

/* Insert or replace key -> size.  *old receives the replaced size (0 if
 * none).  Returns -1 if memory for the table could not be obtained. */
int hcn_map_put(struct hcn_map *m, uint64_t key, uint64_t size, uint64_t *old)
{
    uint64_t h = mix(key);
    struct stripe *s = stripe_of(m, h);
    *old = 0;
    lock(s);
    if ((s->count + 1) * 2 > s->cap && grow(s) != 0) {
        unlock(s);
        return -1;
    }
    raw_put(s, key, size, h, old);
    unlock(s);
    return 0;
}

/* Remove key; returns true and its size if it was present. */
bool hcn_map_take(struct hcn_map *m, uint64_t key, uint64_t *size)
{
    if (key == 0)
        return false;
    uint64_t h = mix(key);
    struct stripe *s = stripe_of(m, h);
    bool found = false;
    lock(s);
    if (s->cap != 0) {
        uint32_t mask = s->cap - 1;
        uint32_t i = (uint32_t)h & mask;
        for (; s->tab[i].key != 0; i = (i + 1) & mask) {
            if (s->tab[i].key == key) {
                found = true;
                break;
            }
        }
        if (found) {
            *size = s->tab[i].size;
            /* backward-shift deletion keeps probe chains intact */
            uint32_t j = i;
            for (;;) {
                j = (j + 1) & mask;
                if (s->tab[j].key == 0)
                    break;
                uint32_t home = (uint32_t)mix(s->tab[j].key) & mask;
                /* move j into hole i unless home lies cyclically in (i, j] */
                bool in_range = (i <= j) ? (home > i && home <= j) : (home > i || home <= j);
                if (!in_range) {
                    s->tab[i] = s->tab[j];
                    i = j;
                }
            }
            s->tab[i].key = 0;
            s->tab[i].size = 0;
            s->count--;
        }
    }
    unlock(s);
    return found;
}

/* In a forked child: no allocations are inherited and no other thread
 * exists, so drop all entries and reset the locks. */
void hcn_map_after_fork(struct hcn_map *m)
{
    for (unsigned i = 0; i < STRIPES; i++) {
        struct stripe *s = &m->s[i];
        atomic_store(&s->lock, 0);
        if (s->tab)
            memset(s->tab, 0, (size_t)s->cap * sizeof *s->tab);
        s->count = 0;
    }
}

/* Record a successful, already-reserved allocation (see guard.h). */
int hcn_commit(struct hcn_map *m, uint64_t key, uint64_t size)
{
    if (key == 0) { /* nothing was really allocated */
        hcn_release(size);
        return 0;
    }
    uint64_t old;
    if (hcn_map_put(m, key, size, &old) != 0) {
        hcn_release(size);
        return -1;
    }
    if (old != 0) /* a stale entry whose free we never saw */
        hcn_release(old);
    return 0;
}
