/*
 * fsexport.h - files of the RAM file system sent out of the machine, so
 * that what a server saved (Redis's dump.rdb, its appendonlydir) can be
 * packed into the next boot's initrd.  fsexport.c encodes; fsexport_exit.c
 * sends, at exit, the paths that `export=PATH` (once per path) names on
 * the kernel command line, through the host channel (kernel/hostchan.h);
 * tools/run/fsexport.py turns the stream back into a folder or a cpio
 * archive (INITRD=).
 *
 * The stream, in the order written (every number decimal unless said):
 *
 *   SPINDLE-EXPORT 1\n                     the start
 *   D <mode octal> <path>\n                a folder
 *   F <mode octal> <size> <path>\n         a file: size bytes follow,
 *     <size bytes>C <crc32, 8 hex>\n         then zlib's CRC-32 of them
 *   L <mode octal> <size> <path>\n         a symbolic link: its target
 *     <size bytes>C <crc32, 8 hex>\n         as for a file
 *   E <records>\n                          the end: how many D, F, L
 *                                          records came before it
 *
 * A path is relative to / (the leading slashes dropped, "." for / itself),
 * with no "." or ".." component, no newline and at most PATH_MAX bytes;
 * a folder comes before what it holds.  A stream without its E line was
 * cut short (the machine stopped mid-way).
 *
 * Not here: devices (/dev's nodes), FIFOs and sockets, which are skipped
 * and said; a file that shrinks while it is read is sent zero-filled to
 * the size it had, and one that grows is sent at that size.
 */
#ifndef POSIX_FSEXPORT_H
#define POSIX_FSEXPORT_H

#include <stdbool.h>
#include <stddef.h>

#define FSEXPORT_MAGIC "SPINDLE-EXPORT 1\n"

/* Where the stream goes.  put returns false once the bytes cannot be
   delivered (the encoder then stops); say reports a path skipped or an
   error, one line without its newline. */
struct fsexport_out {
    bool (*put)(void *arg, const void *buf, size_t n);
    void (*say)(void *arg, const char *line);
    void *arg;
    unsigned long records;      /* D, F and L records written so far */
    bool failed;                /* put returned false: nothing more goes */
};

/* Writes the start line.  False if put failed. */
bool fsexport_begin(struct fsexport_out *o);

/*
 * Writes the records of path (absolute, or relative to the current
 * folder) and, for a folder, of everything under it, parents first.  A
 * path that cannot be read is said and skipped (the stream stays whole);
 * false only if put failed.
 */
bool fsexport_path(struct fsexport_out *o, const char *path);

/* Writes the end line.  False if put failed now or before. */
bool fsexport_end(struct fsexport_out *o);

#endif
