/*
 * cpio.h - a reader of cpio archives in the "newc" format (magic 070701,
 * or 070702 whose checksum field it ignores): the packed tree that the
 * file system unpacks at boot (fs.c).  The reader trusts nothing in the
 * archive: every header field, name and size is checked against the
 * archive's bounds before use, and the first bad byte ends the walk with
 * a message.  It allocates nothing and copies nothing: an entry's name
 * and data point into the archive.
 */
#ifndef POSIX_CPIO_H
#define POSIX_CPIO_H

#include <stddef.h>
#include <stdint.h>

struct cpio_entry {
    const char *name;           /* NUL-terminated, inside the archive */
    size_t namelen;             /* strlen(name) */
    uint32_t mode;              /* type and permission bits (S_IF*) */
    uint32_t mtime;             /* seconds since 1970 */
    const void *data;           /* size bytes: a file's contents, a
                                   symbolic link's target (no NUL) */
    size_t size;
};

struct cpio_reader {
    const unsigned char *base;
    size_t len;
    size_t off;                 /* the next header's offset */
    int end;                    /* 1 while walking; then 0 or -1, what
                                   every later cpio_next returns */
    const char *err;            /* after a -1: what was wrong */
};

void cpio_begin(struct cpio_reader *r, const void *base, size_t len);

/*
 * The next entry: 1 and *e filled in; 0 at the trailer entry
 * ("TRAILER!!!"); -1 if the archive is malformed at r->off (or ends
 * without a trailer), with r->err saying how.  After 0 or -1 every call
 * returns the same.
 */
int cpio_next(struct cpio_reader *r, struct cpio_entry *e);

#endif
