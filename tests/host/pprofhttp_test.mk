# make test's images of a bare-metal arch include apps/httpd, whose
# /debug/pprof tests/host/pprofhttp_test.sh reads under load.
ifneq ($(ARCH),hosted)
test-images: $(B)/apps/httpd.elf
endif
