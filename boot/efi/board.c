/*
 * board.c - what the firmware says about the machine, as "efi: ..." notes
 * for the kernel's console (a board's serial log): the firmware's vendor
 * and revision and the UEFI revision from the system table, and from
 * SMBIOS (DMTF DSP0134) the system's and the board's manufacturer and
 * product names (structure types 1 and 2), where the firmware has them.
 * SMBIOS is read before ExitBootServices and only within the length its
 * entry point gives; a table that is not well formed ends the walk with
 * what was found so far.
 */
#include "boot/efi/loader.h"

#define LINE_MAX 200

struct line {
    char s[LINE_MAX];
    UINTN n;
};

static void put(struct line *l, const char *s, UINTN max)
{
    for (UINTN i = 0; i < max && s[i] && l->n < LINE_MAX - 1; i++)
        l->s[l->n++] = s[i] >= ' ' && s[i] < 127 ? s[i] : '?';
    l->s[l->n] = 0;
}

static void put_dec(struct line *l, uint64_t v, int digits)
{
    char d[24];
    int n = 0;

    do {
        d[n++] = '0' + v % 10;
        v /= 10;
    } while (v || n < digits);
    while (n && l->n < LINE_MAX - 1)
        l->s[l->n++] = d[--n];
    l->s[l->n] = 0;
}

/* The string number idx of the structure at s (formatted area of len
   bytes, then its strings up to end), or "" (0: none; past the set). */
static const char *smbios_string(const uint8_t *s, UINTN len, const uint8_t *end, int idx)
{
    const char *p = (const char *)s + len;

    if (!idx)
        return "";
    while (--idx) {
        while ((const uint8_t *)p < end && *p)
            p++;
        if ((const uint8_t *)++p >= end || !*p)
            return "";
    }
    return p;
}

/* Adds " WHAT MAKER PRODUCT" from a type 1 or 2 structure. */
static void put_names(struct line *l, const char *what, const uint8_t *s, const uint8_t *end)
{
    const char *maker = smbios_string(s, s[1], end, s[4]);
    const char *product = smbios_string(s, s[1], end, s[5]);

    put(l, what, LINE_MAX);
    put(l, " \"", 2);
    put(l, maker, end - (const uint8_t *)maker);
    if (*maker && *product)
        put(l, " ", 1);
    put(l, product, end - (const uint8_t *)product);
    put(l, "\"", 1);
}

/* The structure table at t, len bytes. */
static void smbios_walk(const uint8_t *t, UINTN len, struct line *l)
{
    const uint8_t *end = t + len, *s = t;
    int found = 0;

    while (s + 4 <= end && s[1] >= 4 && s + s[1] <= end) {
        const uint8_t *next = s + s[1];

        while (next + 1 < end && (next[0] || next[1]))
            next++;
        next += 2;              /* the string set's double NUL */
        if (next > end)
            break;
        if ((s[0] == 1 || s[0] == 2) && s[1] >= 6) {
            put_names(l, s[0] == 1 ? (found ? ", system" : " system")
                                   : (found ? ", board" : " board"), s, next);
            found = 1;
        }
        if (s[0] == 127)
            break;
        s = next;
    }
    if (!found)
        put(l, " names no system or board", LINE_MAX);
}

static void smbios_note(void)
{
    static EFI_GUID sm3 = { 0xf2fd1544, 0x9794, 0x4a2c,
                            { 0x99, 0x2e, 0xe5, 0xbb, 0xcf, 0x20, 0xe3, 0x94 } };
    static EFI_GUID sm2 = { 0xeb9d2d31, 0x2d88, 0x11d3,
                            { 0x9a, 0x16, 0x00, 0x90, 0x27, 0x3f, 0xc1, 0x4d } };
    const uint8_t *ep = NULL;
    struct line l = { .n = 0 };
    int v3 = 0;

    for (UINTN i = 0; i < ST->NumberOfTableEntries; i++) {
        EFI_CONFIGURATION_TABLE *c = &ST->ConfigurationTable[i];

        if (!CompareGuid(&c->VendorGuid, &sm3)) {
            ep = c->VendorTable;
            v3 = 1;
        } else if (!CompareGuid(&c->VendorGuid, &sm2) && !ep) {
            ep = c->VendorTable;
        }
    }
    if (!ep) {
        note("no SMBIOS tables", 0, 0);
        return;
    }
    put(&l, "SMBIOS ", LINE_MAX);
    if (v3 && !CompareMem(ep, "_SM3_", 5)) {
        put_dec(&l, ep[7], 1);
        put(&l, ".", 1);
        put_dec(&l, ep[8], 1);
        smbios_walk((const uint8_t *)(UINTN)*(const uint64_t *)(ep + 0x10),
                    *(const uint32_t *)(ep + 0x0c), &l);
    } else if (!v3 && !CompareMem(ep, "_SM_", 4)) {
        put_dec(&l, ep[6], 1);
        put(&l, ".", 1);
        put_dec(&l, ep[7], 1);
        smbios_walk((const uint8_t *)(UINTN)*(const uint32_t *)(ep + 0x18),
                    *(const uint16_t *)(ep + 0x16), &l);
    } else {
        put(&l, "entry point without its anchor; not read", LINE_MAX);
    }
    note(l.s, 0, 0);
}

void board_notes(void)
{
    struct line l = { .n = 0 };
    UINT32 rev = ST->Hdr.Revision;
    char c[2] = { 0, 0 };

    put(&l, "firmware ", LINE_MAX);
    for (CHAR16 *v = ST->FirmwareVendor; v && *v && l.n < LINE_MAX / 2; v++) {
        c[0] = *v < 127 ? (char)*v : '?';
        put(&l, c, 1);
    }
    put(&l, " revision 0x", LINE_MAX);
    for (int i = 28; i >= 0; i -= 4) {
        c[0] = "0123456789abcdef"[ST->FirmwareRevision >> i & 15];
        put(&l, c, 1);
    }
    put(&l, ", UEFI ", LINE_MAX);
    put_dec(&l, rev >> 16, 1);
    put(&l, ".", 1);
    put_dec(&l, (rev & 0xffff) / 10, 1);
    if ((rev & 0xffff) % 10) {
        put(&l, ".", 1);
        put_dec(&l, (rev & 0xffff) % 10, 1);
    }
    note(l.s, 0, 0);
    smbios_note();
}
