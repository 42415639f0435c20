/*
 * fsimpl.h - the RAM file system's insides, shared by fs.c (the tree:
 * nodes, names, lookups, memory accounting, the packed tree), fscalls.c
 * (the calls that take a path), fsfile.c (open files and folders: their
 * data and offsets), fsdev.c (/dev) and dirent.c (folder streams).
 *
 * Locks.  One mutex, fs_ns, guards the tree: every folder's entries,
 * every node's nlink, opens, mode and the times a path call sets, the
 * current folder.  A path call holds it from the lookup to the change,
 * so each path call is atomic with respect to the others (rename above
 * all: a lookup finds the old file or the new, never neither).  A
 * regular file's data and size are guarded by its own rwmutex, `rw`:
 * reads share it, writes and truncations take it alone, so each read and
 * write is atomic with respect to the others on that file.  An open
 * file's offset is guarded by its pos_lock (fsfile.c).  Order: pos_lock,
 * then rw; fs_ns, then rw; pos_lock and fs_ns are never held together.
 * All are sp_ locks: the calls are made by Gs and may park.
 *
 * Lifetime.  A node lives while a folder names it (nlink > 0) or an open
 * file holds it (opens > 0); the last of the two to go frees it, under
 * fs_ns.
 */
#ifndef POSIX_FSIMPL_H
#define POSIX_FSIMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <spindle/sync.h>
#include "posix/fd.h"

#define FS_PAGE     4096
#define FS_SYMLOOP  8           /* symbolic links followed in one lookup */

struct fsnode;

/* A folder's entry; on its folder's list, oldest first. */
struct fsdent {
    struct fsdent *next;
    uint64_t seq;               /* the folder's count when added: readdir's
                                   cookie, so that a walk survives
                                   removals */
    struct fsnode *node;
    size_t len;
    char name[];
};

/* A device of /dev (fsdev.c). */
struct fsdev {
    const char *name;
    dev_t rdev;
    const struct fileops *ops;  /* its files'; NULL: the console's file */
};

struct fsnode {
    mode_t mode;                /* type fixed; permissions under fs_ns */
    ino_t ino;                  /* fixed */
    nlink_t nlink;              /* fs_ns */
    int opens;                  /* open files on it; fs_ns */
    struct timespec atime, mtime, ctime;  /* fs_ns, or rw for a write */
    union {
        struct {                /* S_IFREG */
            sp_rwmutex rw;
            off_t size;         /* rw; read unlocked by stat (atomic) */
            unsigned char **pages;  /* FS_PAGE each; NULL: see packed */
            size_t npages;      /* the length of pages */
            /* The packed tree's bytes of the file, in the archive:
               what a page reads until written (copied on its first
               write); past packed_len a NULL page reads as zeros. */
            const unsigned char *packed;
            size_t packed_len;
        } reg;
        struct {                /* S_IFDIR */
            struct fsdent *head, *tail;
            uint64_t seq;       /* entries ever added */
            size_t n;
            struct fsnode *parent;  /* the root's is itself */
        } dir;
        char *target;           /* S_IFLNK: NUL-terminated */
        const struct fsdev *dev;  /* S_IFCHR */
    };
};

extern sp_mutex fs_ns;
extern struct fsnode *fs_root, *fs_cwd;

/* ---- fs.c: the tree ------------------------------------------------ */

/* The wall clock now. */
struct timespec fs_now(void);

/*
 * A new node of type and permissions mode (S_IFDIR: empty, its parent
 * set when linked), nlink 0, or NULL (ENOSPC: the file system's memory
 * is used up).  fs_ns held.
 */
struct fsnode *fs_node_new(mode_t mode);

/* The folder name under the root, made if missing (perm); NULL if a file
   is in the way or memory ran out.  At boot. */
struct fsnode *fs_mkdir_boot(const char *name, mode_t perm);

/* Frees n if nothing names or holds it; fs_ns held. */
void fs_node_release(struct fsnode *n);

/* The entry of folder dir named name[len], or NULL; fs_ns held. */
struct fsdent *fs_dir_find(struct fsnode *dir, const char *name, size_t len);

/* Adds n to dir as name[len] (nlink++): 0, or -ENOSPC; fs_ns held. */
int fs_dir_add(struct fsnode *dir, const char *name, size_t len,
               struct fsnode *n);

/* Takes d off dir and frees it; its node's nlink--, freed if that was
   the last; fs_ns held. */
void fs_dir_remove(struct fsnode *dir, struct fsdent *d);

/*
 * Resolves path[len] from folder at (a relative path) or the root: 0 and
 * *out, or -errno (ENOENT, ENOTDIR, ELOOP, ENAMETOOLONG).  follow: a
 * symbolic link as the last component is followed (one before a
 * trailing '/' always is).  fs_ns held.
 */
int fs_lookup(struct fsnode *at, const char *path, size_t len, bool follow,
              struct fsnode **out);

/*
 * Resolves all of path but its last component: 0, *dir (a folder) and
 * the last component in *name and *len (len 0 for "/"), *slash if the
 * path ended in '/'; or -errno.  fs_ns held.
 */
int fs_lookup_parent(struct fsnode *at, const char *path, struct fsnode **dir,
                     const char **name, size_t *len, bool *slash);

/* Memory for the file system's data: 0, or -ENOSPC if bytes more would
   pass its limit (fsmax=); fs_unaccount gives it back.  Anywhere. */
int fs_account(size_t bytes);
void fs_unaccount(size_t bytes);

/* A page for a file's data (FS_PAGE bytes, not cleared), accounted, from
   the kernel's pages; NULL (ENOSPC) past fsmax= or the pages' reserve.
   fs_page_free gives it back. */
void *fs_page_alloc(void);
void fs_page_free(void *page);

/* A copy of s[len] with a NUL, in accounted memory (freed with its node),
   or NULL (ENOSPC). */
char *fs_strdup(const char *s, size_t len);

/* fstat's fields of n; fs_ns or an open file on n held. */
void fs_stat_node(struct fsnode *n, struct stat *st);

/* ---- fsfile.c: files and folders open ------------------------------ */

/*
 * Opens n (its opens++ done by the caller) with open's flags: a file
 * with one reference, or NULL and -errno in *err (ENOMEM); O_TRUNC is
 * the caller's.  fs_ns held.
 */
struct file *fs_file_open(struct fsnode *n, int flags, int *err);

/* The node behind an open file of the file system, or NULL for any
   other file (openat's dirfd, fchdir). */
struct fsnode *fs_file_node(struct file *f);

/* Cuts or extends regular file n to len: 0 or -errno (ENOSPC, EFBIG);
   takes n's rw. */
int fs_truncate(struct fsnode *n, off_t len);

/* The next entry of an open folder, into *ino, *type (DT_*) and
   name[NAME_MAX + 1]: 1, 0 at the end, or -errno. */
int fs_readdir(struct file *f, ino_t *ino, unsigned char *type, char *name);

/* The open folder's position (telldir) and a move to one it gave. */
long fs_telldir(struct file *f);
void fs_seekdir(struct file *f, long pos);

/* The file mode creation mask (umask; proc.c's). */
mode_t proc_umask(void);

/* ---- fsdev.c: /dev ------------------------------------------------- */

/* Makes /dev and its devices; at boot. */
void fs_dev_init(void);

/* Hooks the exit's export if the command line has export= (fsexport_exit.c). */
void fs_export_init(void);

/* Opens device dev with open's flags: a file with one reference, the
   caller's, or NULL and -errno in *err (ENOMEM). */
struct file *fs_dev_open(const struct fsdev *dev, int flags, int *err);

#endif
