/*
 * fsexport_exit.c - `export=PATH` (posix/fsexport.h): at exit, the named
 * paths of the RAM file system go out through the host channel
 * (kernel/hostchan.h) as one export stream, for tools/run/fsexport.py.
 *
 * Registered with atexit by fs_init (in G 1, before main), so it runs
 * after the app's own exit handlers, which may still write files: a
 * return from main or exit() exports; _exit, a panic or a killed QEMU
 * does not.  The stream is the channel's only writer while it runs,
 * provided the tracer is not dumping in the background (trace=wrap
 * flushes at exit, before or after it, never during).
 */
#include <stdlib.h>
#include "kernel/cmdline.h"
#include "kernel/hostchan.h"
#include "kernel/printk.h"
#include "posix/fsexport.h"
#include "posix/fsimpl.h"

static bool chan_put(void *arg, const void *buf, size_t n)
{
    return hostchan_write(buf, n);
}

static void chan_say(void *arg, const char *line)
{
    printk("export: %s\n", line);
}

static void export_at_exit(void)
{
    struct fsexport_out o = { .put = chan_put, .say = chan_say };
    const char *path;
    int pos = 0;

    if (!hostchan_present()) {
        printk("export: no host channel (tools/run/qemu.sh EXPORT=): "
               "nothing exported\n");
        return;
    }
    fsexport_begin(&o);
    while (cmdline_next("export", &pos, &path) && !o.failed)
        fsexport_path(&o, path);
    fsexport_end(&o);
    if (hostchan_flush() && !o.failed)
        printk("export: %lu entries sent to the host channel\n", o.records);
    else
        printk("export: the host channel failed; the export is incomplete\n");
}

void fs_export_init(void)
{
    int pos = 0;
    const char *path;

    if (!cmdline_next("export", &pos, &path))
        return;
    if (atexit(export_at_exit))
        printk("export: no room for an exit handler; nothing will be exported\n");
}
