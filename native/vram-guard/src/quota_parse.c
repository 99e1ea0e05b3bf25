/* Parsing of HCN_VRAM_QUOTA_BYTES.  Pure function, unit-tested directly. */
#include "guard.h"

/*
 * Accepts: one or more decimal digits, optionally followed by exactly one of
 * K M G T (powers of 1000) or Ki Mi Gi Ti (powers of 1024).  Nothing else:
 * no sign, no spaces, no "B", no fractions.  Values above HCN_QUOTA_MAX
 * are rejected.  Returns 0 and stores *out, or -1 when malformed.
 */
int hcn_parse_quota(const char *s, uint64_t *out)
{
    if (s == NULL || *s < '0' || *s > '9')
        return -1;
    uint64_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        uint64_t d = (uint64_t)(*s - '0');
        if (v > (HCN_QUOTA_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    uint64_t mult = 1;
    if (*s != '\0') {
        int power;
        switch (*s) {
        case 'K': power = 1; break;
        case 'M': power = 2; break;
        case 'G': power = 3; break;
        case 'T': power = 4; break;
        default: return -1;
        }
        s++;
        uint64_t base = 1000;
        if (*s == 'i') {
            base = 1024;
            s++;
        }
        if (*s != '\0')
            return -1;
        while (power-- > 0)
            mult *= base;
    }
    if (v > HCN_QUOTA_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}
