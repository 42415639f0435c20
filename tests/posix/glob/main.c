/*
 * glob - posix/glob.c over the file system: a small tree made under
 * /tmp/globtest, matched by patterns of each kind (a component with
 * magic, one without, several levels, quoting, hidden names), with
 * GLOB_MARK, GLOB_NOCHECK, GLOB_NOSORT, GLOB_DOOFFS and GLOB_APPEND,
 * GLOB_NOMATCH, and errfunc for a directory that cannot be read.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <spindle/test.h>

#define T "/tmp/globtest"

static bool make_file(const char *path)
{
    int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);

    return fd >= 0 && close(fd) == 0;
}

static bool make_tree(void)
{
    static const char *dirs[] = { "/tmp", T, T "/conf.d", T "/sub" };
    static const char *files[] = {
        T "/a.conf", T "/b.conf", T "/.hidden", T "/*",
        T "/conf.d/x.conf", T "/conf.d/y.conf", T "/sub/z.conf",
    };

    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++)
        if (mkdir(dirs[i], 0755) != 0 && errno != EEXIST)
            return false;
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
        if (!make_file(files[i]))
            return false;
    return true;
}

/* The matches of pat, joined by spaces, into buf (with "!" if gl_pathv
   does not end in NULL); glob's result. */
static int run(const char *pat, int flags, char *buf, size_t len)
{
    glob_t g;
    int r;

    memset(&g, 0, sizeof g);
    r = glob(pat, flags, NULL, &g);
    buf[0] = 0;
    for (int i = 0; i < g.gl_pathc; i++) {
        if (i)
            strncat(buf, " ", len - strlen(buf) - 1);
        strncat(buf, g.gl_pathv[i], len - strlen(buf) - 1);
    }
    if (g.gl_pathv && g.gl_pathv[g.gl_pathc])
        strncat(buf, "!", len - strlen(buf) - 1);
    globfree(&g);
    return r;
}

TEST(patterns)
{
    static const struct { const char *pat; int flags, rc; const char *want; } cases[] = {
        { T "/*.conf", 0, 0, T "/a.conf " T "/b.conf" },
        { T "/*/*.conf", 0, 0, T "/conf.d/x.conf " T "/conf.d/y.conf " T "/sub/z.conf" },
        { T "/c*/y.conf", 0, 0, T "/conf.d/y.conf" },
        { T "/[ab].conf", 0, 0, T "/a.conf " T "/b.conf" },
        { T "/?.conf", 0, 0, T "/a.conf " T "/b.conf" },
        { T "/.h*", 0, 0, T "/.hidden" },
        { T "/\\*", 0, 0, T "/*" },
        { T "/a.conf", 0, 0, T "/a.conf" },
        { T "/s*", GLOB_MARK, 0, T "/sub/" },
        { T "/missing", 0, GLOB_NOMATCH, "" },
        { T "/n*", 0, GLOB_NOMATCH, "" },
        { T "/n*", GLOB_NOCHECK, 0, T "/n*" },
    };
    char buf[512];

    CHECK(make_tree());
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int r = run(cases[i].pat, cases[i].flags, buf, sizeof buf);

        CHECKF(r == cases[i].rc && !strcmp(buf, cases[i].want),
               "glob(%s, %#x) = %d: \"%s\"", cases[i].pat, cases[i].flags, r, buf);
    }
}

TEST(append_and_offsets)
{
    glob_t g;

    CHECK(make_tree());
    memset(&g, 0, sizeof g);
    g.gl_offs = 2;
    CHECK(glob(T "/a.conf", GLOB_DOOFFS, NULL, &g) == 0);
    CHECK(glob(T "/sub/*", GLOB_DOOFFS | GLOB_APPEND, NULL, &g) == 0);
    CHECK(g.gl_pathc == 2 && !g.gl_pathv[0] && !g.gl_pathv[1]);
    CHECK(!strcmp(g.gl_pathv[2], T "/a.conf") && !strcmp(g.gl_pathv[3], T "/sub/z.conf"));
    CHECK(g.gl_pathv[4] == NULL);
    globfree(&g);
    memset(&g, 0, sizeof g);
    CHECK(glob(T "/*.conf", GLOB_NOSORT, NULL, &g) == 0 && g.gl_pathc == 2);
    globfree(&g);
}

static int err_calls, err_errno;

static int on_error(const char *path, int e)
{
    (void)path;
    err_calls++;
    err_errno = e;
    return 1;
}

TEST(unreadable_directory)
{
    glob_t g;

    CHECK(make_tree());
    memset(&g, 0, sizeof g);
    /* a.conf is not a directory: errfunc hears of it and stops glob. */
    CHECK(glob(T "/a.conf/*", 0, on_error, &g) == GLOB_ABORTED);
    CHECK(err_calls == 1 && err_errno == ENOTDIR);
    globfree(&g);
    memset(&g, 0, sizeof g);
    CHECK(glob(T "/a.conf/*", GLOB_ERR, NULL, &g) == GLOB_ABORTED);
    globfree(&g);
    memset(&g, 0, sizeof g);
    CHECK(glob(T "/a.conf/*", 0, NULL, &g) == GLOB_NOMATCH);
    globfree(&g);
}

int main(void)
{
    return sp_test_main();
}
