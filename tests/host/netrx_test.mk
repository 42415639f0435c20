# The receive path: lwIP built for the host with the kernel's port
# (net/lwip/), fed valid, malformed and randomly mutated frames as
# net/stack.c feeds it.  One command: every lwIP file depends on
# lwipopts.h anyway.  --wrap lets the test poison free pool elements, so
# that a use after free inside lwIP is reported.
netrx_test_SRCS    := $(addprefix $(LWIP_DIR)/,$(LWIP_SRCS))
netrx_test_CFLAGS  := $(LWIP_INC)
netrx_test_LDFLAGS := -Wl,--wrap=memp_malloc,--wrap=memp_free
netrx_test_DEPS    := tests/host/lwip_netif.h net/lwip/lwipopts.h net/lwip/lwiphooks.h \
                      net/lwip/netguard.h net/lwip/arch/cc.h $(LWIP_STAMP)
