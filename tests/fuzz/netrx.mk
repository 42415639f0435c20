# lwIP's receive path with the kernel's port (net/lwip/), as
# tests/host/netrx_test.c builds it.
FUZZ_SRCS_netrx   := $(addprefix $(LWIP_DIR)/,$(LWIP_SRCS))
FUZZ_CFLAGS_netrx := $(LWIP_INC) -Itests/host -Wno-tautological-constant-out-of-range-compare
FUZZ_DEPS_netrx   := net/lwip/lwipopts.h net/lwip/lwiphooks.h net/lwip/netguard.h \
                     net/lwip/arch/cc.h tests/host/lwip_netif.h $(LWIP_STAMP)
