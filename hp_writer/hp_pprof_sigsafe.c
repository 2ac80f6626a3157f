/* hp_pprof_sigsafe: PROG.pb.gz and the folded stacks (see hp_pprof.h).
 *
 * profile.proto (github.com/google/pprof/proto/profile.proto), the fields
 * written: Profile { sample_type 1, sample 2, mapping 3, location 4,
 * function 5, string_table 6, time_nanos 9, duration_nanos 10,
 * period_type 11, period 12, comment 13, default_sample_type 14 };
 * ValueType { type 1, unit 2 }; Sample { location_id 1 (packed), value 2
 * (packed) }; Mapping { id 1, memory_start 2, memory_limit 3, file_offset
 * 4, filename 5, build_id 6, has_functions 7, has_filenames 8,
 * has_line_numbers 9 }; Location { id 1, mapping_id 2, address 3, line 4 };
 * Line { function_id 1, line 2 }; Function { id 1, name 2, system_name 3,
 * filename 4 }. Strings are indexes into string_table, whose entry 0 is
 * "". Submessages are built in a scratch buffer, then copied after their
 * key and length. gzip (RFC 1952) around deflate stored blocks (RFC 1951,
 * BTYPE 00, at most 65535 bytes each), CRC-32 (IEEE) by table. */
#include "hp_writer/hp_pprof.h"
#include "hp_writer/hp_names.h"
#include "hp_writer/hp_retained.h"
#include "hp_writer/hp_srcloc.h"
#include "core/hp_buf.h"
#include "core/hp_hash.h"
#include "core/hp_mem.h"
#include "core/hp_rt.h"
#include "core/hp_symbols.h"

#include <string.h>

#define HP_PPROF_FRAMES 128

typedef struct agg { uint64_t ao, as, io, is; } agg;   /* per stack name id */

static hp_buf pb, sub, line_buf, strtext, gz;
static hp_vec agg_vec, str_off_vec, str_slot_vec, loc_vec, fn_vec;
static uint32_t nstr, str_cap;

int hp_pprof_init(void)
{
    if (hp_buf_init(&pb, (size_t)1 << 32) || hp_buf_init(&sub, (size_t)1 << 24) ||
        hp_buf_init(&line_buf, (size_t)1 << 24) || hp_buf_init(&strtext, (size_t)1 << 32) ||
        hp_buf_init(&gz, (size_t)1 << 32))
        return -1;
    if (hp_vec_reserve(&agg_vec, (size_t)1 << 32) || hp_vec_reserve(&str_off_vec, (size_t)1 << 31) ||
        hp_vec_reserve(&str_slot_vec, (size_t)1 << 31) || hp_vec_reserve(&loc_vec, (size_t)1 << 31) ||
        hp_vec_reserve(&fn_vec, (size_t)1 << 31))
        return -1;
    return 0;
}

/* ---- protobuf's wire format ---- */

static void varint(hp_buf *b, uint64_t v)
{
    char c[10];
    int n = 0;
    do {
        c[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    hp_buf_put(b, c, (size_t)n);
}

static void field_varint(hp_buf *b, int field, uint64_t v)
{
    varint(b, (uint64_t)field << 3);
    varint(b, v);
}

static void field_bytes(hp_buf *b, int field, const char *data, size_t n)
{
    varint(b, (uint64_t)field << 3 | 2);
    varint(b, n);
    hp_buf_put(b, data, n);
}

/* ---- the string table: text -> index ---- */

static uint32_t str_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

static const char *str_at(uint32_t i)
{
    return (const char *)strtext.vec.base + ((const uint64_t *)str_off_vec.base)[i];
}

static int str_grow(void)
{
    uint32_t cap = str_cap ? str_cap * 2 : 4096;
    if (hp_vec_ensure(&str_slot_vec, (size_t)cap * sizeof(uint32_t))) return -1;
    uint32_t *slots = (uint32_t *)str_slot_vec.base;
    memset(slots, 0, (size_t)cap * sizeof(uint32_t));
    for (uint32_t i = 0; i < nstr; i++) {
        const char *t = str_at(i);
        uint32_t j = str_hash(t, strlen(t)) & (cap - 1);
        while (slots[j]) j = (j + 1) & (cap - 1);
        slots[j] = i + 1;
    }
    str_cap = cap;
    return 0;
}

static uint64_t str_id(const char *s)
{
    if (!s) s = "";
    if ((nstr + 1) * 2 > str_cap && str_grow()) return 0;
    size_t n = strlen(s);
    uint32_t *slots = (uint32_t *)str_slot_vec.base;
    uint32_t j = str_hash(s, n) & (str_cap - 1);
    for (; slots[j]; j = (j + 1) & (str_cap - 1))
        if (strcmp(str_at(slots[j] - 1), s) == 0) return slots[j] - 1;
    if (hp_vec_ensure(&str_off_vec, (size_t)(nstr + 1) * sizeof(uint64_t))) return 0;
    ((uint64_t *)str_off_vec.base)[nstr] = strtext.len;
    hp_buf_put(&strtext, s, n + 1);
    slots[j] = ++nstr;
    return nstr - 1;
}

/* ---- locations (by frame) and functions (by name) ---- */

typedef struct loc { uintptr_t key; uint64_t id; } loc;
typedef struct fn { uint64_t name, id; } fn;
static uint64_t nloc, loc_cap, nfn, fn_cap;

/* The function named `name` (demangled; `system` as the symbol table has
 * it), written to pb when new: its id. */
static uint64_t function_id(const char *name, const char *system, const char *file)
{
    uint64_t s = str_id(name);
    int fresh;
    fn *f = hp_keyed_slot(&fn_vec, &fn_cap, &nfn, s + 1, sizeof(fn), 4096, &fresh);
    if (!f) return 0;
    if (!fresh) return f->id;
    f->id = nfn;
    hp_buf_reset(&sub);
    field_varint(&sub, 1, f->id);
    field_varint(&sub, 2, s);
    field_varint(&sub, 3, str_id(system ? system : name));
    if (file) field_varint(&sub, 4, str_id(file));
    field_bytes(&pb, 5, hp_buf_cstr(&sub), sub.len);
    return f->id;
}

/* The location of frame f, written to pb (with its function) when new:
 * its id. */
static uint64_t location_id(const hp_name_frame *f)
{
    uintptr_t key = f->pc ? f->pc : (uintptr_t)f->name | ((uintptr_t)1 << 63);
    int fresh;
    loc *l = hp_keyed_slot(&loc_vec, &loc_cap, &nloc, key, sizeof(loc), 4096, &fresh);
    if (!l) return 0;
    if (!fresh) return l->id;
    l->id = nloc;
    /* Source file and line, from "file:line". */
    char file[1024];
    file[0] = 0;
    long line = 0;
    const char *w = f->pc ? hp_srcloc_get(f->pc) : NULL;
    if (w) {
        const char *colon = strrchr(w, ':');
        size_t n = colon ? (size_t)(colon - w) : 0;
        if (colon && n < sizeof file) {
            memcpy(file, w, n);
            file[n] = 0;
            for (const char *p = colon + 1; *p >= '0' && *p <= '9'; p++) line = line * 10 + (*p - '0');
        }
    }
    const char *system = NULL;
    int mapping = 0;
    uintptr_t address = 0;
    if (f->pc) {
        uintptr_t at = hp_rt.cfg.frames_by_call ? f->pc - 1 : f->pc;
        hp_sym_info si = hp_symbols_lookup(at);
        system = si.function;
        mapping = si.module_index + 1;
        address = at;
    }
    uint64_t fid = function_id(f->name, system, file[0] ? file : NULL);
    hp_buf_reset(&line_buf);
    field_varint(&line_buf, 1, fid);
    if (line) field_varint(&line_buf, 2, (uint64_t)line);
    hp_buf_reset(&sub);
    field_varint(&sub, 1, l->id);
    if (mapping > 0) field_varint(&sub, 2, (uint64_t)mapping);
    if (address) field_varint(&sub, 3, address);
    field_bytes(&sub, 4, hp_buf_cstr(&line_buf), line_buf.len);
    field_bytes(&pb, 4, hp_buf_cstr(&sub), sub.len);
    return l->id;
}

/* ---- the rows: per stack name, as the .prof merges them ---- */

static uint32_t aggregate(const hp_ccs_stats *stats, uint32_t nccs)
{
    uint32_t n = 0;
    for (uint32_t c = 0; c < nccs; c++) {
        if (!stats[c].objects) continue;
        uint32_t id = hp_names_full_of(c);
        if (id + 1 > n) {
            if (hp_vec_ensure(&agg_vec, (size_t)(id + 1) * sizeof(agg))) break;
            memset((agg *)agg_vec.base + n, 0, (size_t)(id + 1 - n) * sizeof(agg));
            n = id + 1;
        }
        agg *a = (agg *)agg_vec.base + id;
        a->ao += stats[c].objects;
        a->as += stats[c].bytes;
        a->io += stats[c].at_peak_objects;
        a->is += stats[c].at_peak;
    }
    return n;
}

static void value_type(int field, const char *type, const char *unit)
{
    hp_buf_reset(&sub);
    field_varint(&sub, 1, str_id(type));
    field_varint(&sub, 2, str_id(unit));
    field_bytes(&pb, field, hp_buf_cstr(&sub), sub.len);
}

/* ---- gzip with stored blocks ---- */

static uint32_t crc_table[256];

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    if (!crc_table[1]) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
            crc_table[i] = c;
        }
    }
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) c = crc_table[(c ^ p[i]) & 0xff] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

static void le32(hp_buf *b, uint32_t v)
{
    char c[4] = {(char)v, (char)(v >> 8), (char)(v >> 16), (char)(v >> 24)};
    hp_buf_put(b, c, 4);
}

static void gzip_stored(const unsigned char *data, size_t n)
{
    static const char header[10] = {0x1f, (char)0x8b, 8, 0, 0, 0, 0, 0, 0, (char)0xff};
    hp_buf_reset(&gz);
    hp_buf_put(&gz, header, sizeof header);
    size_t at = 0;
    do {
        size_t len = n - at > 65535 ? 65535 : n - at;
        char head[5] = {(char)(at + len == n), (char)len, (char)(len >> 8), (char)~len,
                        (char)(~len >> 8)};
        hp_buf_put(&gz, head, 5);
        hp_buf_put(&gz, (const char *)data + at, len);
        at += len;
    } while (at < n);
    le32(&gz, crc32_of(data, n));
    le32(&gz, (uint32_t)n);
}

int hp_pprof_write(int fd, const hp_pprof_run *run, const hp_ccs_stats *stats, uint32_t nccs)
{
    hp_buf_reset(&pb);
    hp_buf_reset(&strtext);
    nstr = 0;
    if (str_cap) memset(str_slot_vec.base, 0, (size_t)str_cap * sizeof(uint32_t));
    nloc = nfn = 0;
    if (loc_cap) memset(loc_vec.base, 0, (size_t)loc_cap * sizeof(loc));
    if (fn_cap) memset(fn_vec.base, 0, (size_t)fn_cap * sizeof(fn));
    str_id("");
    value_type(1, "alloc_objects", "count");
    value_type(1, "alloc_space", "bytes");
    value_type(1, "inuse_objects", "count");
    value_type(1, "inuse_space", "bytes");
    /* dominators=yes: what each stack's objects keep alive alone. */
    int retained = hp_retained_known();
    if (retained) {
        value_type(1, "retained_objects", "count");
        value_type(1, "retained_space", "bytes");
    }
    /* Mappings: every loaded module. */
    int nmod = hp_symbols_module_count();
    for (int i = 0; i < nmod; i++) {
        hp_module_info mi;
        if (hp_symbols_module_info(i, &mi)) continue;
        hp_buf_reset(&sub);
        field_varint(&sub, 1, (uint64_t)i + 1);
        field_varint(&sub, 2, mi.lo);
        field_varint(&sub, 3, mi.hi);
        field_varint(&sub, 4, mi.lo - mi.bias);   /* the ELF address of the mapping's start */
        field_varint(&sub, 5, str_id(mi.path));
        field_varint(&sub, 6, str_id(mi.build_id));
        field_varint(&sub, 7, 1);
        field_varint(&sub, 8, 1);
        field_varint(&sub, 9, hp_srcloc_found() > 0);
        field_bytes(&pb, 3, hp_buf_cstr(&sub), sub.len);
    }
    /* Samples: one per stack name, innermost frame first. */
    uint32_t nrows = aggregate(stats, nccs);
    static hp_buf ids, vals;
    if (!ids.vec.base && (hp_buf_init(&ids, (size_t)1 << 20) || hp_buf_init(&vals, 1 << 12)))
        return -1;
    for (uint32_t id = 0; id < nrows; id++) {
        const agg *a = (const agg *)agg_vec.base + id;
        if (!a->ao) continue;
        hp_name_frame f[HP_PPROF_FRAMES];
        int n = hp_names_frames(id, f, HP_PPROF_FRAMES);
        hp_buf_reset(&ids);
        for (int i = 0; i < n; i++) varint(&ids, location_id(&f[i]));
        if (n == 0) {
            hp_name_frame unknown = {"UNKNOWN", 0, 0};
            varint(&ids, location_id(&unknown));
        }
        hp_buf_reset(&vals);
        varint(&vals, a->ao);
        varint(&vals, a->as);
        varint(&vals, a->io);
        varint(&vals, a->is);
        if (retained) {
            uint64_t rb = 0, ro = 0;
            hp_retained_get(id, &rb, &ro);
            varint(&vals, ro);
            varint(&vals, rb);
        }
        hp_buf_reset(&sub);
        field_bytes(&sub, 1, hp_buf_cstr(&ids), ids.len);
        field_bytes(&sub, 2, hp_buf_cstr(&vals), vals.len);
        field_bytes(&pb, 2, hp_buf_cstr(&sub), sub.len);
    }
    if (nrows) memset(agg_vec.base, 0, (size_t)nrows * sizeof(agg));
    /* The run. */
    field_varint(&pb, 9, run->time_nanos);
    field_varint(&pb, 10, run->duration_nanos);
    value_type(11, "space", "bytes");
    field_varint(&pb, 12, 1);
    char note[160];
    size_t k = 0;
    const char *t1 = "heapprof: alloc_* over the whole run; inuse_* live at the peak census, ";
    memcpy(note, t1, strlen(t1));
    k = strlen(t1);
    /* the peak's time in milliseconds, as digits */
    uint64_t ms = (uint64_t)(run->peak_time * 1000.0 + 0.5);
    char d[24];
    int nd = 0;
    do { d[nd++] = (char)('0' + ms % 10); ms /= 10; } while (ms);
    while (nd && k < sizeof note - 16) note[k++] = d[--nd];
    memcpy(note + k, " ms (profile time)", 19);
    field_varint(&pb, 13, str_id(note));
    if (retained)
        field_varint(&pb, 13, str_id("heapprof: retained_* what each stack's objects keep "
                                     "alive alone, at the census with the most bytes reached; "
                                     "stacks nest: do not add them up"));
    field_varint(&pb, 13, str_id(run->job));
    field_varint(&pb, 14, 4);   /* inuse_space, as Go's heap profiles */
    /* The string table, last: every string is known now. */
    for (uint32_t i = 0; i < nstr; i++) {
        const char *s = str_at(i);
        field_bytes(&pb, 6, s, strlen(s));
    }
    if (pb.failed) return -1;
    gzip_stored((const unsigned char *)pb.vec.base, pb.len);
    if (gz.failed) return -1;
    return hp_buf_write(&gz, fd);
}

int hp_folded_write(int fd, const hp_ccs_stats *stats, uint32_t nccs, int live)
{
    uint32_t nrows = aggregate(stats, nccs);
    hp_buf_reset(&gz);
    for (uint32_t id = 0; id < nrows; id++) {
        const agg *a = (const agg *)agg_vec.base + id;
        uint64_t v = live ? a->is : a->as;
        if (!a->ao || !v) continue;
        hp_name_frame f[HP_PPROF_FRAMES];
        int n = hp_names_frames(id, f, HP_PPROF_FRAMES);
        if (n == 0) hp_buf_str(&gz, "UNKNOWN");
        for (int i = n - 1; i >= 0; i--) {
            for (const char *p = f[i].name; *p; p++)
                hp_buf_chr(&gz, *p == ';' || *p == '\n' ? ':' : *p);
            if (i) hp_buf_chr(&gz, ';');
        }
        hp_buf_chr(&gz, ' ');
        hp_buf_u64(&gz, v);
        hp_buf_chr(&gz, '\n');
    }
    if (nrows) memset(agg_vec.base, 0, (size_t)nrows * sizeof(agg));
    if (gz.failed) return -1;
    return hp_buf_write(&gz, fd);
}
