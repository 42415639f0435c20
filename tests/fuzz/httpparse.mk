# apps/httpd's request parser, which the app builds as one of its files.
FUZZ_SRCS_httpparse := apps/httpd/parse.c
