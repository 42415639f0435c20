# apps/httpd's request parser, which the app builds as one of its files.
httpparse_test_SRCS := apps/httpd/parse.c
