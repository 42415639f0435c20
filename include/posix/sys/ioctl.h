/*
 * sys/ioctl.h - ioctl (posix/fdcalls.c): a descriptor answers FIONBIO
 * (O_NONBLOCK on or off); every other request, FIONREAD included, fails
 * with ENOTTY.  Linux's numbers.
 */
#ifndef SPINDLE_SYS_IOCTL_H
#define SPINDLE_SYS_IOCTL_H

#ifdef __cplusplus
extern "C" {
#endif

#define FIONREAD    0x541B
#define FIONBIO     0x5421
#define TIOCGWINSZ  0x5413

struct winsize {
    unsigned short ws_row, ws_col, ws_xpixel, ws_ypixel;
};

int ioctl(int fd, unsigned long request, ...);

#ifdef __cplusplus
}
#endif

#endif
