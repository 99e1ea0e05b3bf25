/*
 * vram-guard test suite.  Linked against the FAKE CUDA library
 * (tests/fake_cuda.c) and run with LD_PRELOAD=libvramguard.so.
 * Every case runs in a fresh process (re-exec of this binary) because the
 * guard reads its environment once at start-up.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_cuda.h"

#define KI 1024ULL
#define MI (1024ULL * 1024ULL)
#define GI (1024ULL * MI)

static int g_fail;
#define CHECK(c)                                                              \
    do {                                                                      \
        if (!(c)) {                                                           \
            printf("    check failed %s:%d: %s\n", __FILE__, __LINE__, #c);   \
            g_fail++;                                                         \
        }                                                                     \
    } while (0)

extern char **environ;

/* ---- access to the guard's introspection functions ---- */
static void *guard_sym(const char *name)
{
    void *p = dlsym(RTLD_DEFAULT, name);
    if (p == NULL) {
        printf("    guard symbol %s not found: is LD_PRELOAD set?\n", name);
        exit(2);
    }
    return p;
}
static unsigned long long used(void)
{
    return ((unsigned long long (*)(void))guard_sym("hcn_vram_guard_used_bytes"))();
}
static int mode(void) { return ((int (*)(void))guard_sym("hcn_vram_guard_mode"))(); }
static const char *shm_name(void)
{
    return ((const char *(*)(void))guard_sym("hcn_vram_guard_shm_name"))();
}

/* ---- cases ---- */
static void case_passthrough(void)
{
    CHECK(mode() == 0);
    CUdeviceptr p = 0;
    CHECK(cuMemAlloc_v2(&p, 4 * GI) == CUDA_SUCCESS);
    CHECK(cuMemFree_v2(p) == CUDA_SUCCESS);
    size_t f = 0, t = 0;
    CHECK(cuMemGetInfo_v2(&f, &t) == CUDA_SUCCESS && t == 16 * GI && f == 8 * GI);
    CHECK(used() == 0);
}

static void case_quota(void) /* HCN_VRAM_QUOTA_BYTES=1Mi */
{
    CHECK(mode() == 1);
    CUdeviceptr a = 0, b = 0, c = 0, h = 0;
    size_t pitch = 0;
    void *rp = NULL;
    CHECK(cuMemAlloc_v2(&a, 512 * KI) == CUDA_SUCCESS);
    long calls = fake_cuda_alloc_calls();
    CHECK(cuMemAlloc_v2(&b, 600 * KI) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cudaMalloc(&rp, 600 * KI) == cudaErrorMemoryAllocation);
    CHECK(cuMemAllocManaged(&b, 600 * KI, 1) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAllocPitch_v2(&b, &pitch, 1000, 600, 4) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAllocAsync(&b, 600 * KI, NULL) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAllocAsync_ptsz(&b, 600 * KI, NULL) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemCreate(&h, 600 * KI, NULL, 0) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAlloc_v2(&b, ~(size_t)0) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(fake_cuda_alloc_calls() == calls); /* the real allocator was never called */
    CHECK(used() == 512 * KI);
    CHECK(cuMemAlloc_v2(&c, 512 * KI) == CUDA_SUCCESS); /* exact fit */
    CHECK(cuMemAlloc_v2(&b, 1) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(used() == MI);
    /* a failing real allocation rolls the reservation back */
    CHECK(cuMemFree_v2(a) == CUDA_SUCCESS && cuMemFree_v2(c) == CUDA_SUCCESS);
    fake_cuda_set_mem(100, 16 * GI);
    CHECK(cuMemAlloc_v2(&a, 200) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(used() == 0);
}

static void case_free(void) /* quota 1Mi */
{
    CUdeviceptr a = 0, h = 0;
    void *rp = NULL;
    size_t pitch = 0;
    for (int i = 0; i < 3; i++) { /* alloc / free / alloc again */
        CHECK(cuMemAlloc_v2(&a, MI) == CUDA_SUCCESS);
        CHECK(used() == MI);
        CHECK(cuMemFree_v2(a) == CUDA_SUCCESS);
        CHECK(used() == 0);
    }
    CHECK(cuMemAlloc_v2(&a, 256 * KI) == CUDA_SUCCESS);
    long frees = fake_cuda_free_calls();
    CHECK(cuMemFree_v2(0x1234500) == CUDA_SUCCESS); /* unknown pointer: no credit */
    CHECK(cuMemFree_v2(0) == CUDA_ERROR_INVALID_VALUE);
    CHECK(fake_cuda_free_calls() == frees + 2);
    CHECK(used() == 256 * KI);
    CHECK(cuMemFree_v2(a) == CUDA_SUCCESS);
    CHECK(cuMemFree_v2(a) == CUDA_SUCCESS); /* double free credits nothing more */
    CHECK(used() == 0);
    /* runtime on top of the (hooked) driver is counted once */
    CHECK(cudaMalloc(&rp, 300 * KI) == cudaSuccess);
    CHECK(used() == 300 * KI);
    CHECK(cudaFree(rp) == cudaSuccess && used() == 0);
    CHECK(cudaFree(NULL) == cudaSuccess && used() == 0);
    /* pitch: accounted as pitch * height (fake pitch alignment 1024) */
    CHECK(cuMemAllocPitch_v2(&a, &pitch, 1000, 10, 4) == CUDA_SUCCESS);
    CHECK(pitch == FAKE_PITCH_ALIGN && used() == FAKE_PITCH_ALIGN * 10);
    CHECK(cuMemFree_v2(a) == CUDA_SUCCESS && used() == 0);
    CHECK(cuMemAllocManaged(&a, MI, 1) == CUDA_SUCCESS && used() == MI);
    CHECK(cuMemFree_v2(a) == CUDA_SUCCESS && used() == 0);
    CHECK(cuMemAllocAsync(&a, MI, NULL) == CUDA_SUCCESS && used() == MI);
    CHECK(cuMemFreeAsync(a, NULL) == CUDA_SUCCESS && used() == 0);
    CHECK(cuMemAllocAsync_ptsz(&a, MI, NULL) == CUDA_SUCCESS && used() == MI);
    CHECK(cuMemFreeAsync_ptsz(a, NULL) == CUDA_SUCCESS && used() == 0);
    CHECK(cuMemCreate(&h, MI, NULL, 0) == CUDA_SUCCESS && used() == MI);
    CHECK(cuMemFree_v2(h) == CUDA_SUCCESS && used() == MI); /* a handle is not a pointer */
    CHECK(cuMemRelease(h) == CUDA_SUCCESS && used() == 0);
}

static void case_meminfo(void) /* quota 1Gi */
{
    size_t f = 0, t = 0;
    CUdeviceptr a = 0;
    CHECK(cuMemGetInfo_v2(&f, &t) == CUDA_SUCCESS && t == GI && f == GI);
    CHECK(cuMemAlloc_v2(&a, 256 * MI) == CUDA_SUCCESS);
    CHECK(cuMemGetInfo_v2(&f, &t) == CUDA_SUCCESS && t == GI && f == 768 * MI);
    CHECK(cudaMemGetInfo(&f, &t) == cudaSuccess && t == GI && f == 768 * MI);
    nvmlMemory_t m = {0, 0, 0};
    CHECK(nvmlDeviceGetMemoryInfo(NULL, &m) == NVML_SUCCESS);
    CHECK(m.total == GI && m.free == 768 * MI && m.used == 256 * MI);
    nvmlMemory_v2_t m2 = {0, 0, 0, 0, 0};
    CHECK(nvmlDeviceGetMemoryInfo_v2(NULL, &m2) == NVML_SUCCESS);
    CHECK(m2.total == GI && m2.free == 768 * MI && m2.reserved == 32 * MI && m2.used == 224 * MI);
    fake_cuda_set_mem(100 * MI, 16 * GI); /* real free below quota - used */
    CHECK(cuMemGetInfo_v2(&f, &t) == CUDA_SUCCESS && t == GI && f == 100 * MI);
    CHECK(cudaMemGetInfo(&f, &t) == cudaSuccess && t == GI && f == 100 * MI);
    CHECK(nvmlDeviceGetMemoryInfo(NULL, &m) == NVML_SUCCESS);
    CHECK(m.total == GI && m.free == 100 * MI && m.used == GI - 100 * MI);
    CHECK(nvmlDeviceGetMemoryInfo_v2(NULL, &m2) == NVML_SUCCESS);
    CHECK(m2.total == GI && m2.free == 68 * MI && m2.used == GI - 68 * MI - 32 * MI);
    CHECK(cuMemFree_v2(a) == CUDA_SUCCESS);
}

typedef CUresult (*alloc_t)(CUdeviceptr *, size_t);
typedef CUresult (*free_t)(CUdeviceptr);
typedef CUresult (*info_t)(size_t *, size_t *);
typedef CUresult (*async_t)(CUdeviceptr *, size_t, CUstream);
typedef CUresult (*gpa_t)(const char *, void **, int, cuuint64_t);
typedef CUresult (*gpa2_t)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *);

/* the pointer must enforce 1Mi and credit through `fr` */
static void check_alloc_ptr(alloc_t al, free_t fr)
{
    CUdeviceptr p = 0;
    CHECK(al != NULL && fr != NULL);
    if (al == NULL || fr == NULL)
        return;
    long calls = fake_cuda_alloc_calls();
    CHECK(al(&p, 2 * MI) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(fake_cuda_alloc_calls() == calls);
    CHECK(al(&p, MI) == CUDA_SUCCESS && used() == MI);
    CHECK(fr(p) == CUDA_SUCCESS && used() == 0);
}

static void case_lookup(void) /* quota 1Mi */
{
    void *h = dlopen("libfake_cuda.so", RTLD_NOW | RTLD_NOLOAD);
    CHECK(h != NULL);
    check_alloc_ptr((alloc_t)dlsym(h, "cuMemAlloc_v2"), (free_t)dlsym(h, "cuMemFree_v2"));
    check_alloc_ptr((alloc_t)dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"),
                    (free_t)dlsym(RTLD_DEFAULT, "cuMemFree_v2"));
    check_alloc_ptr((alloc_t)dlsym(RTLD_NEXT, "cuMemAlloc_v2"), (free_t)dlsym(RTLD_NEXT, "cuMemFree_v2"));
    CHECK(dlsym(h, "does_not_exist") == NULL);
    CHECK(dlsym(h, "fake_cuda_alloc_calls") == (void *)fake_cuda_alloc_calls); /* forwarded */
    size_t f = 0, t = 0;
    info_t gi = (info_t)dlsym(h, "cuMemGetInfo_v2");
    CHECK(gi && gi(&f, &t) == CUDA_SUCCESS && t == MI);

    /* cuGetProcAddress, called directly and obtained through dlsym */
    gpa_t gpa = (gpa_t)dlsym(h, "cuGetProcAddress");
    CHECK(gpa != NULL);
    void *pa = NULL, *pf = NULL, *pi = NULL;
    CHECK(cuGetProcAddress("cuMemAlloc", &pa, 12000, 0) == CUDA_SUCCESS);
    CHECK(gpa && gpa("cuMemFree", &pf, 12000, 0) == CUDA_SUCCESS);
    check_alloc_ptr((alloc_t)pa, (free_t)pf);
    CHECK(cuGetProcAddress("cuMemGetInfo", &pi, 12000, 0) == CUDA_SUCCESS);
    CHECK(pi && ((info_t)pi)(&f, &t) == CUDA_SUCCESS && t == MI);
    CHECK(cuGetProcAddress("fakeUnhooked", &pi, 12000, 0) == CUDA_SUCCESS &&
          pi == (void *)fake_cuda_alloc_calls);
    /* the v2 entry point, reached through cuGetProcAddress itself */
    void *pg2 = NULL;
    CHECK(cuGetProcAddress("cuGetProcAddress", &pg2, 12000, 0) == CUDA_SUCCESS);
    CUdriverProcAddressQueryResult st = -1;
    pa = pf = NULL;
    CHECK(pg2 && ((gpa2_t)pg2)("cuMemAlloc", &pa, 12000, 0, &st) == CUDA_SUCCESS && st == 0);
    CHECK(cuGetProcAddress_v2("cuMemFree", &pf, 12000, 0, &st) == CUDA_SUCCESS);
    check_alloc_ptr((alloc_t)pa, (free_t)pf);
    /* per-thread-default-stream async variant */
    void *pas = NULL;
    CUdeviceptr p = 0;
    CHECK(cuGetProcAddress("cuMemAllocAsync", &pas, 12000,
                           CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) == CUDA_SUCCESS);
    CHECK(pas && ((async_t)pas)(&p, 2 * MI, NULL) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(used() == 0);
    if (h)
        dlclose(h);
}

#define THREADS 16
#define QUOTA_T (4 * MI)
static _Atomic long long g_held, g_ok, g_oom;
static _Atomic int g_over;

static void *thread_main(void *arg)
{
    unsigned long long x = (unsigned long long)(uintptr_t)arg * 0x9e3779b97f4a7c15ULL + 1;
    CUdeviceptr slot[4] = {0};
    size_t sz[4] = {0};
    for (int it = 0; it < 20000; it++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int i = (int)(x & 3);
        if (slot[i]) {
            atomic_fetch_sub(&g_held, (long long)sz[i]);
            if (cuMemFree_v2(slot[i]) != CUDA_SUCCESS)
                atomic_fetch_add(&g_over, 1);
            slot[i] = 0;
        } else {
            size_t s = 64 * KI + (size_t)((x >> 8) % (448 * KI));
            CUresult r = cuMemAlloc_v2(&slot[i], s);
            if (r == CUDA_SUCCESS) {
                sz[i] = s;
                atomic_fetch_add(&g_ok, 1);
                if (atomic_fetch_add(&g_held, (long long)s) + (long long)s > (long long)QUOTA_T)
                    atomic_fetch_add(&g_over, 1);
            } else {
                slot[i] = 0;
                atomic_fetch_add(&g_oom, 1);
                if (r != CUDA_ERROR_OUT_OF_MEMORY)
                    atomic_fetch_add(&g_over, 1);
            }
        }
        if (used() > QUOTA_T)
            atomic_fetch_add(&g_over, 1);
    }
    for (int i = 0; i < 4; i++)
        if (slot[i]) {
            atomic_fetch_sub(&g_held, (long long)sz[i]);
            cuMemFree_v2(slot[i]);
        }
    return NULL;
}

static void case_threads(void) /* quota 4Mi */
{
    pthread_t t[THREADS];
    for (long i = 0; i < THREADS; i++)
        CHECK(pthread_create(&t[i], NULL, thread_main, (void *)(i + 1)) == 0);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    printf("    threads: %lld ok, %lld refused\n", (long long)g_ok, (long long)g_oom);
    CHECK(g_over == 0);
    CHECK(g_ok > 0 && g_oom > 0);
    CHECK(used() == 0);
    if (shm_name()[0] == '/')
        shm_unlink(shm_name());
}

/* run this binary as `--case name` with stdin/stdout connected to pipes */
static pid_t spawn(const char *name, int *to_child, int *from_child)
{
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        char *argv[] = {"test_guard", "--case", (char *)name, NULL};
        execve("/proc/self/exe", argv, environ);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    *to_child = in[1];
    *from_child = out[0];
    return pid;
}

static void xproc_worker(int free_at_end) /* greedy: 1Mi chunks until refused */
{
    char c;
    CUdeviceptr p[64];
    int n = 0;
    if (read(0, &c, 1) != 1) /* "go" */
        exit(3);
    while (n < 64 && cuMemAlloc_v2(&p[n], MI) == CUDA_SUCCESS) {
        n++;
        usleep(2000); /* let the two workers interleave */
    }
    dprintf(1, "%d\n", n);
    while (read(0, &c, 1) > 0) /* hold until the parent closes stdin */
        ;
    if (free_at_end) /* otherwise the exit-time credit must do it */
        for (int i = 0; i < n; i++)
            cuMemFree_v2(p[i]);
}
static void case_xproc_worker_free(void) { xproc_worker(1); }
static void case_xproc_worker_keep(void) { xproc_worker(0); }

static void case_xproc(void) /* quota 8Mi, HCN_ALLOCATION_ID set */
{
    CHECK(shm_name()[0] == '/');
    int to[2], from[2];
    pid_t pid[2];
    pid[0] = spawn("xproc-worker-free", &to[0], &from[0]);
    pid[1] = spawn("xproc-worker-keep", &to[1], &from[1]);
    CHECK(pid[0] > 0 && pid[1] > 0);
    for (int i = 0; i < 2; i++)
        CHECK(write(to[i], "g", 1) == 1);
    int n[2] = {0, 0};
    for (int i = 0; i < 2; i++) {
        char buf[32] = {0};
        CHECK(read(from[i], buf, sizeof buf - 1) > 0);
        n[i] = atoi(buf);
    }
    printf("    worker A holds %d MiB, worker B holds %d MiB (quota 8 MiB)\n", n[0], n[1]);
    CHECK(n[0] + n[1] == 8);
    CHECK(used() == 8 * MI); /* this process shares the same counter */
    for (int i = 0; i < 2; i++) {
        close(to[i]);
        int st = 0;
        waitpid(pid[i], &st, 0);
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        close(from[i]);
    }
    CHECK(used() == 0); /* explicit frees and exit-time credits */
    shm_unlink(shm_name());
}

static void case_malformed(void) /* HCN_VRAM_QUOTA_BYTES malformed */
{
    CHECK(mode() == 2);
    CUdeviceptr p = 0, h = 0;
    void *rp = NULL;
    size_t pitch = 0, f = 0, t = 0;
    CHECK(cuMemAlloc_v2(&p, 1) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAlloc_v2(&p, 0) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cudaMalloc(&rp, 1) == cudaErrorMemoryAllocation);
    CHECK(cuMemAllocManaged(&p, 1, 1) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAllocPitch_v2(&p, &pitch, 1, 1, 4) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAllocAsync(&p, 1, NULL) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemAllocAsync_ptsz(&p, 1, NULL) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(cuMemCreate(&h, 1, NULL, 0) == CUDA_ERROR_OUT_OF_MEMORY);
    void *pa = NULL;
    CHECK(cuGetProcAddress("cuMemAlloc", &pa, 12000, 0) == CUDA_SUCCESS);
    CHECK(pa && ((alloc_t)pa)(&p, 1) == CUDA_ERROR_OUT_OF_MEMORY);
    alloc_t d = (alloc_t)dlsym(RTLD_DEFAULT, "cuMemAlloc_v2");
    CHECK(d && d(&p, 1) == CUDA_ERROR_OUT_OF_MEMORY);
    CHECK(fake_cuda_alloc_calls() == 0);
    CHECK(cuMemGetInfo_v2(&f, &t) == CUDA_SUCCESS && t == 0 && f == 0);
    pthread_t th[4];
    for (long i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, thread_main, (void *)(i + 1));
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK(g_ok == 0 && fake_cuda_alloc_calls() == 0);
}

/* ---- runner ---- */
struct tcase {
    const char *name;
    void (*fn)(void);
    const char *quota; /* NULL: unset */
    int with_id;
    int capture_stderr;
};

static const struct tcase k_cases[] = {
    {"passthrough", case_passthrough, NULL, 0, 0},
    {"quota-enforced", case_quota, "1Mi", 0, 0},
    {"frees-credited", case_free, "1048576", 0, 0},
    {"meminfo-clamped", case_meminfo, "1Gi", 0, 0},
    {"lookup-hooked", case_lookup, "1Mi", 0, 0},
    {"threads-16", case_threads, "4Mi", 0, 0},
    {"threads-16-shared-counter", case_threads, "4Mi", 1, 0},
    {"cross-process", case_xproc, "8Mi", 1, 0},
    {"malformed-12abc", case_malformed, "12abc", 1, 1},
    {"malformed-1.5G", case_malformed, "1.5G", 0, 1},
    {"malformed-empty", case_malformed, "", 0, 1},
    /* helpers started by cross-process (inherit its environment) */
    {"xproc-worker-free", case_xproc_worker_free, NULL, 0, -1},
    {"xproc-worker-keep", case_xproc_worker_keep, NULL, 0, -1},
};
#define NCASES (sizeof k_cases / sizeof k_cases[0])

static char **case_env(const struct tcase *c, char *qbuf, char *idbuf)
{
    size_t n = 0;
    while (environ[n])
        n++;
    char **env = calloc(n + 3, sizeof *env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "HCN_VRAM_QUOTA_BYTES=", 21) != 0 &&
            strncmp(environ[i], "HCN_ALLOCATION_ID=", 18) != 0)
            env[k++] = environ[i];
    if (c->quota) {
        snprintf(qbuf, 128, "HCN_VRAM_QUOTA_BYTES=%s", c->quota);
        env[k++] = qbuf;
    }
    if (c->with_id) {
        snprintf(idbuf, 128, "HCN_ALLOCATION_ID=test/%s#%d", c->name, (int)getpid());
        env[k++] = idbuf;
    }
    return env;
}

static int count_lines(const char *path, int *mentions)
{
    FILE *f = fopen(path, "r");
    int lines = 0;
    char buf[1024];
    *mentions = 0;
    if (!f)
        return -1;
    while (fgets(buf, sizeof buf, f)) {
        lines++;
        if (strstr(buf, "HCN_VRAM_QUOTA_BYTES") && strstr(buf, "refusing ALL"))
            (*mentions)++;
    }
    fclose(f);
    return lines;
}

static int run_case(const struct tcase *c)
{
    char qbuf[128], idbuf[128], errpath[] = "/tmp/vram-guard-stderr-XXXXXX";
    int errfd = -1;
    if (c->capture_stderr && (errfd = mkstemp(errpath)) < 0)
        return 0;
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        if (errfd >= 0)
            dup2(errfd, 2);
        char *argv[] = {"test_guard", "--case", (char *)c->name, NULL};
        execve("/proc/self/exe", argv, case_env(c, qbuf, idbuf));
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    int pass = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    if (errfd >= 0) {
        int mentions = 0, lines = count_lines(errpath, &mentions);
        printf("    stderr: %d line(s), %d guard message(s)\n", lines, mentions);
        if (lines != 1 || mentions != 1)
            pass = 0;
        close(errfd);
        unlink(errpath);
    }
    printf("%s %s\n", pass ? "PASS" : "FAIL", c->name);
    return pass;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--case") == 0) {
        for (size_t i = 0; i < NCASES; i++)
            if (strcmp(argv[2], k_cases[i].name) == 0) {
                k_cases[i].fn();
                fflush(stdout);
                return g_fail ? 1 : 0;
            }
        return 2;
    }
    (void)guard_sym("hcn_vram_guard_mode"); /* refuse to run unguarded */
    int passed = 0, total = 0;
    for (size_t i = 0; i < NCASES; i++) {
        if (k_cases[i].capture_stderr < 0)
            continue;
        total++;
        passed += run_case(&k_cases[i]);
    }
    printf("test_guard: %d/%d cases passed\n", passed, total);
    return passed == total ? 0 : 1;
}
