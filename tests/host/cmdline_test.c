/*
 * cmdline_test.c - host unit test for kernel/cmdline.c: token splitting,
 * key lookup, every occurrence of a repeated key, strict number parsing with range clamping, app argv after
 * `--`, truncation, and hostile lines (NULL, blanks only, junk numbers).
 */
#include <limits.h>
#include <string.h>
#include "harness.h"
#include "kernel/cmdline.h"

static bool val_is(const char *key, const char *want)
{
    const char *v = NULL;

    return cmdline_get(key, &v) && v != NULL && strcmp(v, want) == 0;
}

TEST(get_basic)
{
    cmdline_parse("smp=4 quantum=10ms debug test=chan_basic");
    CHECK(val_is("smp", "4"));
    CHECK(val_is("quantum", "10ms"));
    CHECK(val_is("debug", ""));
    CHECK(val_is("test", "chan_basic"));
    CHECK(!cmdline_get("nosuch", NULL));
    CHECK(cmdline_get("debug", NULL));
    CHECK(strcmp(cmdline_raw(), "smp=4 quantum=10ms debug test=chan_basic")
          == 0);
    CHECK(!cmdline_truncated());
}

TEST(get_last_wins)
{
    cmdline_parse("smp=1 smp=2 debug=x debug smp=8");
    CHECK(val_is("smp", "8"));
    CHECK(val_is("debug", ""));
}

TEST(next_every_occurrence)
{
    const char *v = NULL;
    int pos = 0;

    cmdline_parse("dev=a smp=2 dev devx=no dev=c -- dev=app");
    CHECK(cmdline_next("dev", &pos, &v) && strcmp(v, "a") == 0);
    CHECK(cmdline_next("dev", &pos, &v) && strcmp(v, "") == 0);
    CHECK(cmdline_next("dev", &pos, &v) && strcmp(v, "c") == 0);
    v = "kept";
    CHECK(!cmdline_next("dev", &pos, &v) && strcmp(v, "kept") == 0);
    CHECK(!cmdline_next("dev", &pos, &v));
    pos = 0;
    CHECK(!cmdline_next("nosuch", &pos, &v) && !cmdline_next("", &pos, &v) &&
          !cmdline_next(NULL, &pos, &v));
}

TEST(get_exact_key)
{
    /* Prefixes and extensions of a key must not match it. */
    cmdline_parse("smpx=1 sm=2 a=b=c =odd");
    CHECK(!cmdline_get("smp", NULL));
    CHECK(val_is("smpx", "1"));
    CHECK(val_is("sm", "2"));
    CHECK(val_is("a", "b=c"));
    CHECK(!cmdline_get("a=b", NULL));
    CHECK(!cmdline_get("", NULL));
    CHECK(!cmdline_get(NULL, NULL));
}

TEST(get_absent_keeps_val)
{
    const char *v = "untouched";

    cmdline_parse("x=1");
    CHECK(!cmdline_get("y", &v));
    CHECK(strcmp(v, "untouched") == 0);
}

TEST(blanks)
{
    cmdline_parse("  \t smp=3 \n\r  debug\t\t  ");
    CHECK(val_is("smp", "3"));
    CHECK(val_is("debug", ""));
    cmdline_parse(" \t\n ");
    CHECK(!cmdline_get("smp", NULL));
    CHECK(strcmp(cmdline_raw(), " \t\n ") == 0);
}

TEST(null_and_empty)
{
    char *argv[4];

    cmdline_parse(NULL);
    CHECK(strcmp(cmdline_raw(), "") == 0);
    CHECK(!cmdline_get("smp", NULL));
    CHECK(cmdline_argv("app", argv, 4) == 1);
    CHECK(argv[1] == NULL);
    cmdline_parse("");
    CHECK(strcmp(cmdline_raw(), "") == 0);
    CHECK(!cmdline_truncated());
}

TEST(reparse_replaces)
{
    cmdline_parse("a=1 b=2");
    cmdline_parse("c=3");
    CHECK(!cmdline_get("a", NULL));
    CHECK(val_is("c", "3"));
}

TEST(truncation)
{
    static char big[3000];
    size_t n;

    /* 1020 chars of padding then a token that straddles the limit. */
    memset(big, 'p', 1020);
    big[0] = 'x';
    big[1] = '=';
    big[1020] = ' ';
    strcpy(big + 1021, "smp=128 tail=1");
    cmdline_parse(big);
    CHECK(cmdline_truncated());
    n = strlen(cmdline_raw());
    CHECK(n <= CMDLINE_MAX - 1);
    CHECK(!cmdline_get("smp", NULL));   /* "sm" must not survive as smp */
    CHECK(!cmdline_get("sm", NULL));
    CHECK(cmdline_get("x", NULL));

    /* Cut exactly at a blank keeps the whole first part. */
    memset(big, 'q', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    big[0] = 'k';
    big[1] = '=';
    big[CMDLINE_MAX - 1] = ' ';
    cmdline_parse(big);
    CHECK(cmdline_truncated());
    CHECK(strlen(cmdline_raw()) == CMDLINE_MAX - 1);
    CHECK(cmdline_get("k", NULL));

    /* One giant token leaves nothing rather than a fragment. */
    memset(big, 'z', sizeof(big) - 1);
    cmdline_parse(big);
    CHECK(cmdline_truncated());
    CHECK(strcmp(cmdline_raw(), "") == 0);

    /* Exactly CMDLINE_MAX - 1 characters fit. */
    big[CMDLINE_MAX - 1] = '\0';
    cmdline_parse(big);
    CHECK(!cmdline_truncated());
    CHECK(strlen(cmdline_raw()) == CMDLINE_MAX - 1);

    cmdline_parse("short");
    CHECK(!cmdline_truncated());
}

TEST(many_tokens)
{
    static char line[CMDLINE_MAX];
    char *argv[600];
    int argc;

    /* The densest line possible: 511 one-letter tokens after `--`. */
    memcpy(line, "-- ", 3);
    for (int i = 3; i < CMDLINE_MAX - 1; i++)
        line[i] = i % 2 ? 'a' : ' ';
    line[CMDLINE_MAX - 1] = '\0';
    cmdline_parse(line);
    CHECK(!cmdline_truncated());
    argc = cmdline_argv("app", argv, 600);
    CHECK(argc == 1 + (CMDLINE_MAX - 1 - 3 + 1) / 2);
    CHECK(argv[argc] == NULL);
    CHECK(strcmp(argv[argc - 1], "a") == 0);
}

struct numcase {
    const char *line;
    long min, max;
    enum cmdline_status want;
    long out;           /* expected *out; for BAD/ABSENT, the sentinel */
};

#define SENT 12345L

static const struct numcase nums[] = {
    { "n=4", 1, 64, CMDLINE_OK, 4 },
    { "n=0", 0, 10, CMDLINE_OK, 0 },
    { "n=-0", -5, 5, CMDLINE_OK, 0 },
    { "n=-17", -100, 100, CMDLINE_OK, -17 },
    { "n=0x1F", 0, 100, CMDLINE_OK, 31 },
    { "n=0Xff", 0, 1000, CMDLINE_OK, 255 },
    { "n=-0x10", -100, 100, CMDLINE_OK, -16 },
    { "n=010", 0, 100, CMDLINE_OK, 10 },      /* decimal, not octal */
    { "n=9223372036854775807", LONG_MIN, LONG_MAX, CMDLINE_OK, LONG_MAX },
    { "n=-9223372036854775808", LONG_MIN, LONG_MAX, CMDLINE_OK, LONG_MIN },
    { "n=0x7fffffffffffffff", LONG_MIN, LONG_MAX, CMDLINE_OK, LONG_MAX },
    { "n=-0x8000000000000000", LONG_MIN, LONG_MAX, CMDLINE_OK, LONG_MIN },
    { "n=1 n=2", 0, 10, CMDLINE_OK, 2 },
    { "n=100", 1, 64, CMDLINE_RANGE, 64 },
    { "n=0", 1, 64, CMDLINE_RANGE, 1 },
    { "n=-5", 1, 64, CMDLINE_RANGE, 1 },
    { "n=9223372036854775807", 0, 10, CMDLINE_RANGE, 10 },
    { "m=4", 1, 64, CMDLINE_ABSENT, SENT },
    { "", 1, 64, CMDLINE_ABSENT, SENT },
    { "-- n=4", 1, 64, CMDLINE_ABSENT, SENT },
    { "n", 1, 64, CMDLINE_BAD, SENT },
    { "n=", 1, 64, CMDLINE_BAD, SENT },
    { "n=abc", 1, 64, CMDLINE_BAD, SENT },
    { "n=4x", 1, 64, CMDLINE_BAD, SENT },
    { "n=4k", 1, 64, CMDLINE_BAD, SENT },
    { "n=x4", 1, 64, CMDLINE_BAD, SENT },
    { "n=-", 1, 64, CMDLINE_BAD, SENT },
    { "n=+4", 1, 64, CMDLINE_BAD, SENT },
    { "n=--4", -64, 64, CMDLINE_BAD, SENT },
    { "n=0x", 1, 64, CMDLINE_BAD, SENT },
    { "n=-0x", 1, 64, CMDLINE_BAD, SENT },
    { "n=0x1g", 1, 64, CMDLINE_BAD, SENT },
    { "n=1a", 1, 64, CMDLINE_BAD, SENT },
    { "n=4.5", 1, 64, CMDLINE_BAD, SENT },
    { "n=9223372036854775808", LONG_MIN, LONG_MAX, CMDLINE_BAD, SENT },
    { "n=-9223372036854775809", LONG_MIN, LONG_MAX, CMDLINE_BAD, SENT },
    { "n=99999999999999999999999", 1, 64, CMDLINE_BAD, SENT },
    { "n=0x10000000000000000", 1, 64, CMDLINE_BAD, SENT },
    { "n=0x8000000000000000", LONG_MIN, LONG_MAX, CMDLINE_BAD, SENT },
    { "n=4", 64, 1, CMDLINE_BAD, SENT },      /* min > max */
};

static const char *stname(enum cmdline_status s)
{
    static const char *const names[] = { "ABSENT", "OK", "BAD", "RANGE" };

    return (unsigned)s < 4 ? names[s] : "?";
}

TEST(long_table)
{
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        const struct numcase *c = &nums[i];
        long out = SENT;
        enum cmdline_status st;

        cmdline_parse(c->line);
        st = cmdline_long("n", c->min, c->max, &out);
        if (st != c->want || out != c->out)
            FAIL("\"%s\" [%ld,%ld]: got %s %ld, want %s %ld", c->line,
                 c->min, c->max, stname(st), out, stname(c->want), c->out);
    }
}

/* fbcon= as kernel/printk.c reads it: 0 or 1; anything else is reported
   and leaves the framebuffer console on; the app's words do not count. */
TEST(switch_fbcon)
{
    long v = -1;

    cmdline_parse("fbcon=0");
    CHECK(cmdline_long("fbcon", 0, 1, &v) == CMDLINE_OK && v == 0);
    cmdline_parse("fbcon=0 smp=2 fbcon=1");
    CHECK(cmdline_long("fbcon", 0, 1, &v) == CMDLINE_OK && v == 1);
    cmdline_parse("fbcon=2");
    CHECK(cmdline_long("fbcon", 0, 1, &v) == CMDLINE_RANGE && v == 1);
    v = -1;
    cmdline_parse("fbcon=off");
    CHECK(cmdline_long("fbcon", 0, 1, &v) == CMDLINE_BAD && v == -1);
    cmdline_parse("fbcon");
    CHECK(cmdline_long("fbcon", 0, 1, &v) == CMDLINE_BAD);
    cmdline_parse("fbconsole=0 -- fbcon=0");
    CHECK(cmdline_long("fbcon", 0, 1, &v) == CMDLINE_ABSENT);
}

TEST(argv_basic)
{
    char *argv[8];
    int argc;

    cmdline_parse("smp=2 -- -v file.txt -- x=1");
    argc = cmdline_argv("hello", argv, 8);
    if (!CHECK(argc == 5))
        return;
    CHECK(strcmp(argv[0], "hello") == 0);
    CHECK(strcmp(argv[1], "-v") == 0);
    CHECK(strcmp(argv[2], "file.txt") == 0);
    CHECK(strcmp(argv[3], "--") == 0);      /* only the first -- splits */
    CHECK(strcmp(argv[4], "x=1") == 0);
    CHECK(argv[5] == NULL);
    CHECK(val_is("smp", "2"));
    CHECK(!cmdline_get("x", NULL));         /* app args are not keys */
}

TEST(argv_edges)
{
    char *argv[4] = { (char *)"junk", (char *)"junk", (char *)"junk", NULL };

    cmdline_parse("a b c");                 /* no -- : only the name */
    CHECK(cmdline_argv("app", argv, 4) == 1);
    CHECK(argv[1] == NULL);

    cmdline_parse("-- a b c d e");          /* more args than room */
    CHECK(cmdline_argv("app", argv, 3) == 2);
    CHECK(strcmp(argv[1], "a") == 0 && argv[2] == NULL);
    CHECK(cmdline_argv("app", argv, 2) == 1);
    CHECK(argv[1] == NULL);
    argv[0] = (char *)"junk";
    CHECK(cmdline_argv("app", argv, 1) == 0);
    CHECK(argv[0] == NULL);
    argv[0] = (char *)"junk";
    CHECK(cmdline_argv("app", argv, 0) == 0);
    CHECK(cmdline_argv("app", argv, -3) == 0);
    CHECK(strcmp(argv[0], "junk") == 0);    /* max <= 0 writes nothing */
    CHECK(cmdline_argv("app", NULL, 4) == 0);

    CHECK(cmdline_argv(NULL, argv, 4) == 3);
    CHECK(strcmp(argv[0], "") == 0);

    cmdline_parse("k=v --");                /* trailing -- : no args */
    CHECK(cmdline_argv("app", argv, 4) == 1);
    CHECK(val_is("k", "v"));

    cmdline_parse("--x ---");               /* not standalone -- */
    CHECK(cmdline_argv("app", argv, 4) == 1);
    CHECK(cmdline_get("--x", NULL) && cmdline_get("---", NULL));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
