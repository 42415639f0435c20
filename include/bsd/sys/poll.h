/* sys/poll.h - the old name of <poll.h>. */
#include <poll.h>
