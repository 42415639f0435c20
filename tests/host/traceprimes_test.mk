# make test's images of a bare-metal arch include apps/primes, which
# tests/host/traceprimes_test.sh traces.
ifneq ($(ARCH),hosted)
test-images: $(B)/apps/primes.elf
endif
