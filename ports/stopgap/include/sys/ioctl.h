/*
 * sys/ioctl.h - ioctl's declaration, until include/posix has the header
 * (ports/stopgap/README.md).  ioctl itself fails with ENOSYS.
 */
#ifndef STOPGAP_SYS_IOCTL_H
#define STOPGAP_SYS_IOCTL_H

int ioctl(int fd, unsigned long request, ...);

#endif
