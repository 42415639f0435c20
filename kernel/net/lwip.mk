# kernel/net/lwip.mk - lwIP 2.1.3 as a static library, $(LWIP_LIB), built with
# the kernel's compiler and flags.  Included by the Makefile once CFLAGS, B,
# CROSS, LIBC_DEP, Q and msg are final (after arch/hosted/hosted.mk).
#
#   LWIP_LIB    $(B)/lwip/liblwip.a, to link into the images
#   LWIP_INC    the include flags of any kernel file that uses lwIP
#   LWIP_STAMP  order-only prerequisite of such files: the lwIP tree exists
#
# The source tree is Debian's lwip source package, unpacked by
# tools/lwip.sh into build/lwip/lwip (shared by every ARCH); the
# configuration is kernel/net/lwipopts.h and kernel/net/arch/cc.h.

LWIP_DIR   := build/lwip/lwip
LWIP_STAMP := build/lwip/.stamp
LWIP_INC   := -Ikernel/net -I$(LWIP_DIR)/src/include

# What a NO_SYS, IPv4-only, raw-API stack over Ethernet compiles (see
# lwipopts.h); raw.c is empty until LWIP_RAW is turned on.
LWIP_SRCS := $(addprefix src/core/,init.c def.c inet_chksum.c ip.c mem.c \
               memp.c netif.c pbuf.c raw.c stats.c sys.c tcp.c tcp_in.c \
               tcp_out.c timeouts.c udp.c) \
             $(addprefix src/core/ipv4/,dhcp.c etharp.c icmp.c ip4.c \
               ip4_addr.c ip4_frag.c) \
             src/netif/ethernet.c
LWIP_OBJS := $(LWIP_SRCS:src/%.c=$(B)/lwip/%.o)
LWIP_LIB  := $(B)/lwip/liblwip.a

# Flags for lwIP's own files.  lwIP 2.1.3 compiles warning-free under the
# kernel's -Wall -Wextra -Werror (GCC 12; x86_64, aarch64, hosted and its
# sanitizer builds), so no -Wno-... is needed: only the include paths.
LWIP_CFLAGS := $(LWIP_INC)

$(LWIP_STAMP): tools/lwip.sh tools/once.sh tools/lwip-tcp-in.patch
	$(Q)tools/lwip.sh build/lwip

# The sources appear with the stamp; order-only, so a re-fetch (same
# files) rebuilds nothing.
$(addprefix $(LWIP_DIR)/,$(LWIP_SRCS)): | $(LWIP_STAMP) ;

$(LWIP_OBJS): $(B)/lwip/%.o: $(LWIP_DIR)/src/%.c | $(LIBC_DEP)
	$(call msg,CC,$<)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) $(LWIP_CFLAGS) -c -o $@ $<

$(LWIP_LIB): $(LWIP_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)$(CROSS)ar rcs $@ $^
