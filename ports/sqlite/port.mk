# ports/sqlite/port.mk - SQLite's speedtest1 (ports/sqlite/build.sh):
# `make run APP=speedtest1` boots it; tests/host/sqlite_test.sh compares
# its verification hash with the host build's (make test builds both
# with each bare-metal arch's test images).

SQLITE_BUILD := ports/sqlite/build.sh $(PORT_SCRIPTS)
PORT_PROGRAMS += speedtest1
PORT_ELF_speedtest1     := $(B)/ports/sqlite/speedtest1.elf
PORT_CMDLINE_speedtest1 := -- --memdb --size 5 --verify
PORT_ELFS += $(PORT_ELF_speedtest1)

$(B)/ports/sqlite/speedtest1.elf: $(TOOLCHAIN) $(SQLITE_BUILD)
	+$(Q)ports/sqlite/build.sh $(ARCH)

build/ports/sqlite/host/speedtest1: $(SQLITE_BUILD)
	+$(Q)ports/sqlite/build.sh host

# make test's images of a bare-metal arch include speedtest1 and the host
# reference, for tests/host/sqlite_test.sh.
test-images: $(PORT_ELF_speedtest1) build/ports/sqlite/host/speedtest1
