/* pipeline/rhash.h — the per-element fingerprint of stats and verify, shared by the CPU kernels
 * (kernels/cpu/reduce.c) and the CUDA kernels (kernels/cuda/reduce.cu): XXH3_64bits_withSeed of an
 * element's 1, 2, 4 or 8 value bytes, seeded by its index. For so few bytes XXH3 is
 * XXH3_len_1to3_64b or XXH3_len_4to8_64b of xxhash.h 0.8 with the default secret; written out
 * here without the length branches, host and device. Same bits as libxxhash: the unit test
 * test_rhash_run compares every size with XXH3_64bits_withSeed. */
#ifndef GP_RHASH_H
#define GP_RHASH_H
#include <stdint.h>
#include "pipeline/xacc.h"   /* GPX */

/* XXH3_kSecret's bit flips: readLE32(s) ^ readLE32(s + 4) (1 to 3 bytes), readLE64(s + 8) ^
 * readLE64(s + 16) (4 to 8 bytes); XXH_PRIME64_2 and _3 */
#define GP_HX_BF13 0x87275a9bull
#define GP_HX_BF48 0xc73ab174c5ecd5a2ull
#define GP_HX_P64_2 0xC2B2AE3D27D4EB4Full
#define GP_HX_P64_3 0x165667B19E3779F9ull

GPX uint64_t gp_hx_rotl(uint64_t x, int r) { return (x << r) | (x >> (64 - r)); }
GPX uint64_t gp_hx_bswap32hi(uint64_t seed)   /* (u64)swap32((u32)seed) << 32 */
{
#ifdef __CUDA_ARCH__
    return (uint64_t)__byte_perm((unsigned)seed, 0, 0x0123) << 32;
#else
    return __builtin_bswap64(seed) & 0xffffffff00000000ull;
#endif
}
/* XXH3_len_4to8_64b: in64 = input2 + (input1 << 32) */
GPX uint64_t gp_hx_4to8(uint64_t in64, uint64_t seed, uint64_t len)
{
    seed ^= gp_hx_bswap32hi(seed);
    uint64_t h = in64 ^ (GP_HX_BF48 - seed);
    h ^= gp_hx_rotl(h, 49) ^ gp_hx_rotl(h, 24);   /* XXH3_rrmxmx */
    h *= 0x9FB21C651E98DF25ull;
    h ^= (h >> 35) + len;
    h *= 0x9FB21C651E98DF25ull;
    return h ^ (h >> 28);
}
/* XXH3_len_1to3_64b: combined = c1 << 16 | c2 << 24 | c3 | len << 8 */
GPX uint64_t gp_hx_1to3(uint64_t combined, uint64_t seed)
{
    uint64_t h = combined ^ (GP_HX_BF13 + seed);
    h ^= h >> 33;   /* XXH64_avalanche */
    h *= GP_HX_P64_2;
    h ^= h >> 29;
    h *= GP_HX_P64_3;
    return h ^ (h >> 32);
}
/* One element's fingerprint from its value bytes read little-endian into v (1, 2, 4 or 8 bytes). */
GPX uint64_t gp_hx1(uint64_t v, uint64_t seed) { return gp_hx_1to3(v << 16 | v << 24 | v | 1u << 8, seed); }
GPX uint64_t gp_hx2(uint64_t v, uint64_t seed)
{
    return gp_hx_1to3((v & 0xff) << 16 | (v >> 8) << 24 | (v >> 8) | 2u << 8, seed);
}
GPX uint64_t gp_hx4(uint64_t v, uint64_t seed) { return gp_hx_4to8(v | v << 32, seed, 4); }
GPX uint64_t gp_hx8(uint64_t v, uint64_t seed) { return gp_hx_4to8(gp_hx_rotl(v, 32), seed, 8); }
#endif
