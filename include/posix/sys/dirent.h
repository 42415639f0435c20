/*
 * sys/dirent.h - what newlib's <dirent.h> wants from the system: the
 * folder stream (DIR) and its entries, for posix/dirent.c on the RAM
 * file system.  d_type is always filled in (DT_REG, DT_DIR, DT_LNK,
 * DT_CHR).
 */
#ifndef SPINDLE_SYS_DIRENT_H
#define SPINDLE_SYS_DIRENT_H

#include <sys/types.h>

#define _DIRENT_HAVE_D_TYPE 1
#define _DIRENT_HAVE_D_OFF  1

struct dirent {
    ino_t d_ino;
    off_t d_off;                /* telldir's position after this entry */
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[256];           /* NAME_MAX + 1 */
};

typedef struct __spindle_dir DIR;

#define DT_UNKNOWN  0
#define DT_FIFO     1
#define DT_CHR      2
#define DT_DIR      4
#define DT_BLK      6
#define DT_REG      8
#define DT_LNK      10
#define DT_SOCK     12

#endif
