/* hp_fde_sigsafe: function spans from a module's .eh_frame_hdr search
 * table (see hp_fde.h).
 *
 * .eh_frame_hdr: version 1, three pointer encodings (eh_frame_ptr,
 * fde_count, table), eh_frame_ptr, fde_count, then fde_count pairs
 * (initial location, FDE address), sorted by location. GNU ld always
 * writes the table as DW_EH_PE_datarel | DW_EH_PE_sdata4 (offsets from the
 * header); another table encoding is not read (the module then keeps one
 * name, as before). Each FDE: length, CIE pointer, pc_begin and pc_range
 * in the encoding its CIE's augmentation 'R' gives. Every read is checked
 * against the file's bounds: a malformed table gives fewer spans, never a
 * read outside the image. */
#include "core/hp_fde.h"

#include <elf.h>
#include <link.h>
#include <string.h>

enum {
    PE_ABSPTR = 0x00, PE_ULEB = 0x01, PE_UDATA2 = 0x02, PE_UDATA4 = 0x03, PE_UDATA8 = 0x04,
    PE_SLEB = 0x09, PE_SDATA2 = 0x0a, PE_SDATA4 = 0x0b, PE_SDATA8 = 0x0c,
    PE_PCREL = 0x10, PE_DATAREL = 0x30, PE_OMIT = 0xff,
};

typedef struct cursor { const unsigned char *p, *end; int bad; } cursor;

static uint64_t rd(cursor *c, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)c->p[i] << (8 * i);
    c->p += n;
    return v;
}

static uint64_t uleb(cursor *c)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
        uint64_t b = rd(c, 1);
        v |= (b & 0x7f) << shift;
        if (!(b & 0x80) || c->bad) return v;
    }
    c->bad = 1;
    return 0;
}

/* A value of the encoding's format (the low four bits), sign-extended. */
static int64_t value(cursor *c, int enc)
{
    switch (enc & 0x0f) {
    case PE_ABSPTR: case PE_UDATA8: case PE_SDATA8: return (int64_t)rd(c, 8);
    case PE_UDATA4: return (int64_t)rd(c, 4);
    case PE_SDATA4: return (int32_t)rd(c, 4);
    case PE_UDATA2: return (int64_t)rd(c, 2);
    case PE_SDATA2: return (int16_t)rd(c, 2);
    case PE_ULEB: return (int64_t)uleb(c);
    case PE_SLEB: {
        int64_t v = 0;
        int shift = 0;
        uint64_t b;
        do {
            b = rd(c, 1);
            v |= (int64_t)(b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) && shift < 64 && !c->bad);
        if (shift < 64 && (b & 0x40)) v |= -((int64_t)1 << shift);
        return v;
    }
    default: c->bad = 1; return 0;
    }
}

typedef struct image {
    const unsigned char *img;
    size_t len;
    const ElfW(Phdr) *ph;
    int phnum;
} image;

/* The file bytes at virtual address v (to the end of its segment's file
 * part), or NULL. */
static const unsigned char *at_vaddr(const image *im, uint64_t v, const unsigned char **end)
{
    for (int i = 0; i < im->phnum; i++) {
        const ElfW(Phdr) *p = &im->ph[i];
        if (p->p_type != PT_LOAD || v < p->p_vaddr || v >= p->p_vaddr + p->p_filesz) continue;
        uint64_t off = p->p_offset + (v - p->p_vaddr);
        uint64_t stop = p->p_offset + p->p_filesz;
        if (stop > im->len || off >= stop) return NULL;
        *end = im->img + stop;
        return im->img + off;
    }
    return NULL;
}

/* The pointer encoding of pc_begin and pc_range that the CIE at `cie`
 * gives (augmentation 'R'; absptr when it has none), or -1. */
static int cie_encoding(const unsigned char *cie, const unsigned char *end)
{
    cursor c = {cie, end, 0};
    uint64_t length = rd(&c, 4);
    if (length == 0xffffffffu) {
        rd(&c, 8);
        if (rd(&c, 8) != 0) return -1;
    } else if (rd(&c, 4) != 0) {
        return -1;   /* not a CIE */
    }
    int version = (int)rd(&c, 1);
    const char *aug = (const char *)c.p;
    size_t alen = strnlen(aug, (size_t)(c.end - c.p));
    if (c.bad || alen == (size_t)(c.end - c.p)) return -1;
    c.p += alen + 1;
    if (strstr(aug, "eh")) rd(&c, 8);
    uleb(&c);              /* code alignment */
    value(&c, PE_SLEB);    /* data alignment */
    if (version == 1) rd(&c, 1);
    else uleb(&c);         /* return address register */
    if (aug[0] != 'z') return c.bad ? -1 : PE_ABSPTR;
    uleb(&c);              /* augmentation data length */
    for (const char *a = aug + 1; *a && !c.bad; a++) {
        if (*a == 'R') return (int)rd(&c, 1);
        if (*a == 'P') {
            int penc = (int)rd(&c, 1);
            value(&c, penc);
        } else if (*a == 'L') {
            rd(&c, 1);
        } else if (*a != 'S' && *a != 'B') {
            return -1;     /* unknown augmentation: the rest cannot be read */
        }
    }
    return c.bad ? -1 : PE_ABSPTR;
}

/* The span of the FDE at virtual address `fde_v`; 0, or -1 when it cannot
 * be read. *cie_at and *cie_enc keep the last CIE read and its encoding. */
static int fde_span(const image *im, uint64_t fde_v, hp_fde_span *out, const unsigned char **cie_at,
                    int *cie_enc)
{
    const unsigned char *end;
    const unsigned char *f = at_vaddr(im, fde_v, &end);
    if (!f) return -1;
    cursor c = {f, end, 0};
    uint64_t length = rd(&c, 4);
    if (length == 0 || length == 0xffffffffu) return -1;   /* (64-bit FDEs: not written by ld) */
    const unsigned char *idfield = c.p;
    uint64_t cie_ptr = rd(&c, 4);
    if (c.bad || cie_ptr == 0 || cie_ptr > (uint64_t)(idfield - im->img)) return -1;
    const unsigned char *cie = idfield - cie_ptr;
    if (cie != *cie_at) {
        *cie_enc = cie_encoding(cie, end);
        *cie_at = cie;
    }
    int enc = *cie_enc;
    if (enc < 0 || enc == PE_OMIT) return -1;
    uint64_t field_v = fde_v + (uint64_t)(c.p - f);
    int64_t begin = value(&c, enc);
    uint64_t range = (uint64_t)value(&c, enc & 0x0f);
    if (c.bad) return -1;
    if ((enc & 0x70) == PE_PCREL) begin += (int64_t)field_v;
    else if ((enc & 0x70) != 0) return -1;
    out->start = (uint64_t)begin;
    out->size = range;
    return 0;
}

uint32_t hp_fde_read(const unsigned char *img, size_t len, hp_arena *arena, hp_fde_span **out)
{
    *out = NULL;
    const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)img;
    if (len < sizeof *eh || eh->e_phoff == 0 ||
        eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(ElfW(Phdr)) > len)
        return 0;
    image im = {img, len, (const ElfW(Phdr) *)(img + eh->e_phoff), eh->e_phnum};
    const ElfW(Phdr) *hdr = NULL;
    for (int i = 0; i < im.phnum; i++)
        if (im.ph[i].p_type == PT_GNU_EH_FRAME) hdr = &im.ph[i];
    if (!hdr || hdr->p_offset + hdr->p_filesz > len || hdr->p_filesz < 4) return 0;
    const unsigned char *h = img + hdr->p_offset;
    cursor c = {h, h + hdr->p_filesz, 0};
    int version = (int)rd(&c, 1), ptr_enc = (int)rd(&c, 1), count_enc = (int)rd(&c, 1),
        table_enc = (int)rd(&c, 1);
    if (version != 1 || table_enc != (PE_DATAREL | PE_SDATA4) || ptr_enc == PE_OMIT ||
        count_enc == PE_OMIT)
        return 0;
    value(&c, ptr_enc);
    int64_t count = value(&c, count_enc);
    if (c.bad || count <= 0 || (uint64_t)count > (uint64_t)(c.end - c.p) / 8) return 0;
    hp_fde_span *spans = hp_arena_alloc(arena, (size_t)count * sizeof *spans + 1);
    if (!spans) return 0;
    const unsigned char *cie_at = NULL;
    int cie_enc = -1;
    uint32_t n = 0;
    for (int64_t i = 0; i < count; i++) {
        int32_t loc = (int32_t)rd(&c, 4), fde = (int32_t)rd(&c, 4);
        if (c.bad) break;
        hp_fde_span s;
        if (fde_span(&im, hdr->p_vaddr + (int64_t)fde, &s, &cie_at, &cie_enc) != 0 ||
            s.start != hdr->p_vaddr + (int64_t)loc || s.size == 0)
            continue;
        /* Sorted by the table; keep it so (a table out of order ends here). */
        if (n && s.start < spans[n - 1].start) break;
        spans[n++] = s;
    }
    *out = n ? spans : NULL;
    return n;
}

long hp_fde_find(const hp_fde_span *spans, uint32_t n, uint64_t v)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (spans[mid].start <= v) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    const hp_fde_span *s = &spans[lo - 1];
    return v - s->start < s->size ? (long)(lo - 1) : -1;
}
