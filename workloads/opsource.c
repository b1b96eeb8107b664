/* opsource.c - op mixes, YCSB D's shared state, and filling op buffers (opsource.h). */
#include "opsource.h"

#include <string.h>

bool op_mix_reads_only(const struct op_mix *m)
{
    /* the dice c in [0, 100) that reach each kind */
    bool first = m->below1 > 0, second = m->below2 > m->below1 && m->below1 < 100,
         rest = m->below1 < 100 && m->below2 < 100;
    return (!first || m->first == OP_GET) && (!second || m->second == OP_GET) && (!rest || m->rest == OP_GET);
}

struct op_mix op_mix_basic(unsigned insert, unsigned remove)
{
    return (struct op_mix){ .below1 = insert, .below2 = insert + remove,
                            .first = OP_INSERT, .second = OP_REMOVE, .rest = OP_GET };
}

int op_mix_ycsb(const char *name, struct op_mix *out)
{
    /* the read share, then the one other op */
    static const struct { const char *name; unsigned read; enum op_kind other; } ycsb[] = {
        { "ycsb-a", 50, OP_UPDATE }, { "ycsb-b", 95, OP_UPDATE }, { "ycsb-c", 100, OP_UPDATE },
        { "ycsb-d", 95, OP_INSERT }, { "ycsb-f", 50, OP_RMW },
    };
    for (size_t i = 0; i < sizeof ycsb / sizeof ycsb[0]; i++)
        if (strcmp(name, ycsb[i].name) == 0) {
            *out = (struct op_mix){ .below1 = ycsb[i].read, .below2 = 100,
                                    .first = OP_GET, .second = ycsb[i].other, .rest = ycsb[i].other };
            return 0;
        }
    return -1;
}

void ycsb_latest_init(struct ycsb_latest *y, uint64_t range)
{
    memset(y->done, 0, sizeof y->done);
    y->next = y->acked = range;
}

void opsrc_init(struct opsrc *s, const struct keygen *keys, const struct op_mix *mix, uint64_t seed,
                uint64_t stream, const uint64_t *buf, uint64_t len, const uint64_t *hot_base,
                struct ycsb_latest *latest, struct opsrc_rounds *rounds)
{
    memset(s, 0, sizeof *s);
    cht_rng_seed(&s->rng, seed, stream);
    s->keys = keys;
    s->mix = *mix;
    s->hot_base = hot_base;
    s->buf = buf;
    s->mask = len == UINT64_MAX ? UINT64_MAX : len - 1;
    s->latest = latest;
    s->rounds = rounds;
    if (rounds)     /* round 0: its writes as drawn */
        *rounds = (struct opsrc_rounds){ .range = keys ? keys->range : 0,
                                         .seed = seed ^ (stream * 0x9e3779b97f4a7c15ull) };
}

void opsrc_round_begin(struct opsrc_rounds *R, uint64_t round)
{
    struct cht_rng rng;
    cht_rng_seed(&rng, R->seed, round);
    R->round = round;
    R->shift = cht_rng_below(cht_rng_next(&rng), R->range);    /* in [0, r); 0 for r = 0 */
}

/* one instantiation per drawn kind: opsrc_next's switch folds in each */
#define FILL_WITH(K)                                                 \
    for (j = 0; j < n; j++) {                                        \
        if (!(j & 4095) && *interrupted)                             \
            break;                                                   \
        struct op op = opsrc_next(s, K);                             \
        buf[j] = opbuf_entry(op.kind, op.key);                       \
    }

uint64_t opsrc_fill(struct opsrc *s, unsigned kind, uint64_t *buf, uint64_t n, const volatile int *interrupted)
{
    static const uint64_t no_shift = 0;
    const uint64_t *hot_base = s->hot_base;
    uint64_t j = 0;
    s->hot_base = &no_shift;
    switch (kind & (OPSRC_BASE | OPSRC_MAP)) {
    case OPSRC_UNIFORM: FILL_WITH(OPSRC_UNIFORM); break;
    case OPSRC_UNIFORM | OPSRC_MAP: FILL_WITH(OPSRC_UNIFORM | OPSRC_MAP); break;
    case OPSRC_KEYGEN: FILL_WITH(OPSRC_KEYGEN); break;
    case OPSRC_KEYGEN | OPSRC_MAP: FILL_WITH(OPSRC_KEYGEN | OPSRC_MAP); break;
    case OPSRC_HOTSPOT: FILL_WITH(OPSRC_HOTSPOT); break;
    case OPSRC_HOTSPOT | OPSRC_MAP: FILL_WITH(OPSRC_HOTSPOT | OPSRC_MAP); break;
    default: break;                /* a buffer is not filled from a buffer */
    }
    s->hot_base = hot_base;
    return j;
}
