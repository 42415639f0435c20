# The check of a disk image made by make image (tools/build/mkimage.sh):
# make test runs it on build/<arch>/hello.img when it boots that arch
# through firmware (tests/tests.mk), the aarch64 image's check built with
# its name.
efiimage_test_SRCS :=
efiimage_test_FW   := yes
$(HB)/efiimage_aarch64_test: tests/host/efiimage_test.c tests/host/harness.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) $(HOST_CFLAGS) $(HOST_SAN) -DIMAGE='"build/aarch64/hello.img"' -o $@ $<
