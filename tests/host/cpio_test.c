/*
 * cpio_test - posix/cpio.c, the newc reader of the packed tree: a good
 * archive walked entry by entry, and each way an archive can be bad
 * refused with its message, never read past its end.
 */
#include <stdlib.h>
#include "harness.h"
#include "posix/cpio.h"

/* Appends one newc entry to buf at *len: name, mode, data of size n. */
static void put(char *buf, size_t *len, const char *name, unsigned mode,
                const char *data, size_t n)
{
    size_t namesize = strlen(name) + 1;

    *len += (size_t)sprintf(buf + *len, "070701%08X%08X%08X%08X%08X%08X%08zX"
                            "%08X%08X%08X%08X%08zX%08X", 1, mode, 0, 0, 1,
                            1700000000, n, 0, 0, 0, 0, namesize, 0);
    memcpy(buf + *len, name, namesize);
    *len += namesize;
    while (*len % 4)
        buf[(*len)++] = 0;
    memcpy(buf + *len, data, n);
    *len += n;
    while (*len % 4)
        buf[(*len)++] = 0;
}

static char arc[4096];
static size_t arclen;

/* A small archive: a folder, a file, a link, the trailer. */
static void build(void)
{
    arclen = 0;
    put(arc, &arclen, "etc", 040755, "", 0);
    put(arc, &arclen, "etc/app.conf", 0100644, "port 6379\n", 10);
    put(arc, &arclen, "etc/link", 0120777, "app.conf", 8);
    put(arc, &arclen, "TRAILER!!!", 0, "", 0);
}

TEST(walks_a_good_archive)
{
    struct cpio_reader r;
    struct cpio_entry e;

    build();
    cpio_begin(&r, arc, arclen);
    CHECK(cpio_next(&r, &e) == 1 && !strcmp(e.name, "etc") && e.mode == 040755 &&
          e.size == 0 && e.namelen == 3);
    CHECK(cpio_next(&r, &e) == 1 && !strcmp(e.name, "etc/app.conf") &&
          e.size == 10 && !memcmp(e.data, "port 6379\n", 10) &&
          e.mtime == 1700000000);
    CHECK(cpio_next(&r, &e) == 1 && (e.mode & 0170000) == 0120000 &&
          e.size == 8 && !memcmp(e.data, "app.conf", 8));
    CHECK(cpio_next(&r, &e) == 0);
    CHECK(cpio_next(&r, &e) == 0);      /* and stays there */
}

/* The first error of arc[0..len) as the reader reports it. */
static const char *error_of(const char *a, size_t len)
{
    struct cpio_reader r;
    struct cpio_entry e;
    int k;

    cpio_begin(&r, a, len);
    while ((k = cpio_next(&r, &e)) == 1)
        ;
    return k < 0 ? r.err : NULL;
}

TEST(refuses_bad_archives)
{
    char *copy;

    build();
    /* Cut anywhere before the trailer's end: an error, never a read past
       the end (ASan would see one, from a heap copy of exact size). */
    for (size_t cut = 0; cut < arclen - 3; cut++) {
        copy = malloc(cut ? cut : 1);
        memcpy(copy, arc, cut);
        CHECK(error_of(copy, cut) != NULL);
        free(copy);
    }
    CHECK(!strcmp(error_of(arc, 0), "no trailer entry"));
    copy = malloc(arclen);

    memcpy(copy, arc, arclen);
    copy[3] = '8';
    CHECK(!strcmp(error_of(copy, arclen), "not a newc header (magic 070701)"));

    memcpy(copy, arc, arclen);
    copy[6 + 8 + 2] = 'g';                  /* in the mode field */
    CHECK(!strcmp(error_of(copy, arclen), "a header field that is not hexadecimal"));

    memcpy(copy, arc, arclen);
    memcpy(copy + 6 + 11 * 8, "00000000", 8);   /* namesize 0 */
    CHECK(!strcmp(error_of(copy, arclen), "an empty name"));

    memcpy(copy, arc, arclen);
    memcpy(copy + 6 + 11 * 8, "7FFFFFFF", 8);
    CHECK(!strcmp(error_of(copy, arclen), "a name past the archive's end"));

    memcpy(copy, arc, arclen);
    memcpy(copy + 6 + 11 * 8, "00000003", 8);   /* "etc" without its NUL */
    CHECK(!strcmp(error_of(copy, arclen), "a name without its NUL"));

    memcpy(copy, arc, arclen);
    memcpy(copy + 6 + 6 * 8, "FFFFFFFF", 8);    /* filesize */
    CHECK(!strcmp(error_of(copy, arclen), "data past the archive's end"));
    free(copy);
}

TEST(takes_070702_and_a_missing_last_pad)
{
    struct cpio_reader r;
    struct cpio_entry e;

    build();
    arc[5] = '2';
    cpio_begin(&r, arc, arclen);
    CHECK(cpio_next(&r, &e) == 1);
    arclen = 0;
    put(arc, &arclen, "f", 0100644, "abcde", 5);
    put(arc, &arclen, "TRAILER!!!", 0, "", 0);
    cpio_begin(&r, arc, arclen);
    CHECK(cpio_next(&r, &e) == 1 && e.size == 5 && cpio_next(&r, &e) == 0);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
