# net/net.mk - the network's build: lwIP 2.1.3 as a static library,
# $(LWIP_LIB), built with the kernel's compiler and flags, and the flags
# of net/'s own files.  Included by the Makefile once CFLAGS, B, CROSS,
# LIBC_DEP, Q and msg are final (after arch/hosted/hosted.mk).
#
#   LWIP_LIB    $(B)/lwip/liblwip.a, to link into the images: NET_STACKS
#               copies of lwIP, copy i's global names prefixed lw<i>_
#   NET_STACKS  how many copies (net/lwipinst.h)
#   LWIP_INC    the include flags of any file that uses lwIP
#   LWIP_STAMP  order-only prerequisite of such files: the lwIP tree exists
#
# The source tree is Debian's lwip source package, unpacked by
# tools/build/lwip.sh into build/lwip/lwip (shared by every ARCH); the
# port (configuration and compiler glue) is net/lwip/lwipopts.h and
# net/lwip/arch/cc.h, found by lwIP as "lwipopts.h" and "arch/cc.h".

LWIP_DIR   := build/lwip/lwip
LWIP_STAMP := build/lwip/.stamp
LWIP_INC   := -Inet/lwip -I$(LWIP_DIR)/src/include

# What a NO_SYS, IPv4-only, raw-API stack over Ethernet with a DNS client
# compiles (see lwipopts.h); raw.c is empty until LWIP_RAW is turned on.
LWIP_SRCS := $(addprefix src/core/,init.c def.c inet_chksum.c ip.c mem.c \
               memp.c netif.c pbuf.c raw.c stats.c sys.c tcp.c tcp_in.c \
               tcp_out.c timeouts.c udp.c dns.c) \
             $(addprefix src/core/ipv4/,dhcp.c etharp.c icmp.c ip4.c \
               ip4_addr.c ip4_frag.c) \
             src/netif/ethernet.c
LWIP_OBJS := $(LWIP_SRCS:src/%.c=$(B)/lwip/%.o)
LWIP_LIB  := $(B)/lwip/liblwip.a

# One lwIP per receive queue, each with its own state under its own lock
# (net/stack.c): lwIP keeps its state in globals, so each copy is
# the whole library linked into one object whose global symbols are
# renamed (tcp_write becomes lw1_tcp_write in copy 1).  References
# outside lwIP (memcpy, sys_now) keep their names and are shared.
NET_STACKS  := 4
LWIP_COPIES := $(foreach i,$(shell seq 0 $(shell expr $(NET_STACKS) - 1)),$(B)/lwip/copy$(i).o)

# Flags for lwIP's own files.  lwIP 2.1.3 compiles warning-free under the
# kernel's -Wall -Wextra -Werror (GCC 12; x86_64, aarch64, hosted and its
# sanitizer builds), so no -Wno-... is needed: only the include paths.
LWIP_CFLAGS := $(LWIP_INC)

$(LWIP_STAMP): tools/build/lwip.sh tools/build/once.sh tools/build/lwip-tcp-in.patch
	$(Q)tools/build/lwip.sh build/lwip

# The sources appear with the stamp; order-only, so a re-fetch (same
# files) rebuilds nothing.
$(addprefix $(LWIP_DIR)/,$(LWIP_SRCS)): | $(LWIP_STAMP) ;

$(LWIP_OBJS): $(B)/lwip/%.o: $(LWIP_DIR)/src/%.c | $(LIBC_DEP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LWIP_CFLAGS) -c -o $@ $<

$(B)/lwip/lwip.o: $(LWIP_OBJS)
	$(call msg,LD,$@)
	$(Q)$(LD) -r -o $@ $^

$(B)/lwip/copy%.o: $(B)/lwip/lwip.o
	$(call msg,COPY,$@)
	$(Q)$(NM) -g --defined-only $< | awk '{ print $$3, "lw$*_" $$3 }' > $@.syms
	$(Q)$(CROSS)objcopy --redefine-syms=$@.syms $< $@

# net/'s own files: lwIP's headers, and how many copies there are.
NET_OBJS := $(patsubst %.c,$(B)/%.o,$(wildcard net/*.c))
$(NET_OBJS): CFLAGS += $(LWIP_INC) -DNET_STACKS=$(NET_STACKS)
$(NET_OBJS): | $(LWIP_STAMP)

$(LWIP_LIB): $(LWIP_COPIES)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(CROSS)ar rcs $@ $^
