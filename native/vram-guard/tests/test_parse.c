/* Unit tests of the HCN_VRAM_QUOTA_BYTES parser (compiled with src/quota_parse.c). */
#include <stdio.h>

#include "guard.h"

static int failures;

static void ok(const char *s, unsigned long long want)
{
    uint64_t v = 0;
    if (hcn_parse_quota(s, &v) != 0 || v != want) {
        printf("FAIL parse '%s': want %llu got %llu\n", s, want, (unsigned long long)v);
        failures++;
    }
}

static void bad(const char *s)
{
    uint64_t v = 0;
    if (hcn_parse_quota(s, &v) == 0) {
        printf("FAIL parse '%s' should be malformed\n", s ? s : "(null)");
        failures++;
    }
}

int main(void)
{
    ok("0", 0);
    ok("1048576", 1048576);
    ok("4K", 4000);
    ok("4Ki", 4096);
    ok("3M", 3000000);
    ok("3Mi", 3ULL << 20);
    ok("2G", 2000000000ULL);
    ok("2Gi", 2ULL << 30);
    ok("1Ti", 1ULL << 40);
    ok("4611686018427387904", 1ULL << 62);
    const char *bads[] = {"", " 1", "1 ", "-1", "+1", "1.5G", "12abc", "1KB", "1k", "1Kib",
                          "G", "0x10", "4611686018427387905", "99999999999999999999999",
                          "4194305Ti", "1Gi ", NULL};
    for (int i = 0; bads[i]; i++)
        bad(bads[i]);
    bad(NULL);
    printf("test_parse: %s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
